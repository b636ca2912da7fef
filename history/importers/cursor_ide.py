"""The Cursor IDE's chats: `<User>/globalStorage/state.vscdb` (SQLite), table `cursorDiskKV`
(older builds: `ItemTable`). `composerData:<composerId>` lists a chat's bubbles in order
(`fullConversationHeadersOnly`, or inline `conversation`), each `bubbleId:<composerId>:<bubbleId>`
a message: `type` 1 is the person's (a prompt), 2 the assistant's (`text`, and `toolFormerData`
`{name, rawArgs|params, status}` for a tool). A chat's project is the `workspace.json` folder of
the workspace whose own `state.vscdb` lists the chat in `composer.composerData`. Every database
is opened read-only with a short busy timeout (history.importers.sqlite_files): Cursor may have it
open, and it is never locked for writing, written or created.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import ReadReport, TurnDraft, file_time, parse_timestamp
from history.importers.editors import NO_FOLDER, workspace_folder
from history.importers.sqlite_files import read_only, tables
from history.importers.tool_calls import ToolKinds, apply_call

STATE_DB = "state.vscdb"
# Cursor's tool names, the IDE's and its CLI agent's (history.importers.cursor).
KINDS = ToolKinds(
    read=frozenset({"Read", "read_file", "read_file_v2", "ReadFile"}),
    edit=frozenset(
        {
            "Write",
            "StrReplace",
            "Edit",
            "MultiEdit",
            "EditNotebook",
            "edit_file",
            "edit_file_v2",
            "search_replace",
            "write",
            "Delete",
            "delete_file",
        }
    ),
    shell=frozenset({"Shell", "run_terminal_cmd", "run_terminal_command_v2"}),
    web=frozenset({"web_search", "WebSearch", "WebFetch", "web_fetch"}),
)


def json_value(value: object) -> Any:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    try:
        return json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None


def read_ide(path: Path) -> ReadReport:
    report = ReadReport()
    try:
        with read_only(path) as db:
            chats = _chats(db, report)
    except sqlite3.Error as error:
        report.problems.append(f"Could not read the Cursor database {path.name}: {error}.")
        return report
    projects = _chat_projects(path)
    for composer_id, (composer, bubbles) in chats.items():
        project = projects.get(composer_id) or NO_FOLDER
        _chat(composer_id, composer, bubbles, project, path, report)
    if report.skipped:
        report.problems.append(f"{report.skipped} chat entries in {path.name} were not JSON.")
    return report


def _chats(
    db: sqlite3.Connection, report: ReadReport
) -> dict[str, tuple[dict[str, Any], dict[str, dict[str, Any]]]]:
    chats: dict[str, tuple[dict[str, Any], dict[str, dict[str, Any]]]] = {}
    bubbles: dict[str, dict[str, dict[str, Any]]] = {}
    present = tables(db)
    for table in [name for name in ("cursorDiskKV", "ItemTable") if name in present]:
        rows = db.execute(
            f"SELECT key, value FROM {table} WHERE key LIKE 'composerData:%' "
            "OR key LIKE 'bubbleId:%'"
        )
        for key, value in rows:
            report.lines += 1
            data = json_value(value)
            if not isinstance(data, dict):
                report.skipped += 1
            elif key.startswith("composerData:"):
                chats[key.split(":", 1)[1]] = (data, {})
            else:
                _, composer, bubble = [*key.split(":", 2), "", ""][:3]
                bubbles.setdefault(composer, {})[bubble] = data
    return {cid: (composer, bubbles.get(cid, {})) for cid, (composer, _) in chats.items()}


def _chat_projects(global_db: Path) -> dict[str, str]:
    """Each chat's project: the workspace whose own state.vscdb lists it."""
    found: dict[str, str] = {}
    for workspace_db in sorted(global_db.parent.parent.glob(f"workspaceStorage/*/{STATE_DB}")):
        folder = workspace_folder(workspace_db.parent)
        try:
            with read_only(workspace_db) as db:
                row = db.execute(
                    "SELECT value FROM ItemTable WHERE key = 'composer.composerData'"
                ).fetchone()
        except sqlite3.Error:
            continue
        data = json_value(row[0]) if row else None
        composers = data.get("allComposers") if isinstance(data, dict) else None
        for entry in composers if isinstance(composers, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
                found[entry["composerId"]] = folder
    return found


def moment(value: object, fallback: datetime) -> datetime:
    """A time given in epoch milliseconds or ISO 8601; `fallback` when it is neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, UTC)
    return parse_timestamp(value) or fallback


def _chat(
    composer_id: str,
    composer: dict[str, Any],
    bubbles: dict[str, dict[str, Any]],
    project: str,
    path: Path,
    report: ReadReport,
) -> None:
    headers = composer.get("fullConversationHeadersOnly")
    if isinstance(headers, list):
        ordered = [
            bubbles[h["bubbleId"]]
            for h in headers
            if isinstance(h, dict) and h.get("bubbleId") in bubbles
        ]
    else:
        inline = composer.get("conversation")
        ordered = [b for b in inline if isinstance(b, dict)] if isinstance(inline, list) else []
    started = moment(composer.get("createdAt"), file_time(path))
    current: TurnDraft | None = None
    number = -1
    for bubble in ordered:
        text = bubble["text"] if isinstance(bubble.get("text"), str) else ""
        if bubble.get("type") == 1 and text.strip():
            if current is not None:
                report.turns.append(current.finish())
            number += 1
            current = TurnDraft(
                f"cursor:{composer_id}:{number}",
                composer_id,
                project,
                text.strip(),
                moment(bubble.get("createdAt"), started),
            )
        elif bubble.get("type") == 2 and current is not None:
            current.say(text)
            tool = bubble.get("toolFormerData")
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                apply_call(current, tool["name"], tool.get("rawArgs") or tool.get("params"), KINDS)
                if tool.get("status") == "error":
                    current.failed(str(tool.get("result") or "error"))
    if current is not None:
        report.turns.append(current.finish())

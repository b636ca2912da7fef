"""Cursor: the CLI agent's transcripts and the IDE's chats.

The agent writes `~/.cursor/projects/<slug>/agent-transcripts/<chatId>.jsonl`, one
`{role, message: {content: [text | tool_use | tool_result]}}` a line; the person's words are the
`<user_query>` of a user line (a line of only tool results is not a prompt). Its project is the
`Workspace Path:` the agent states in the user text; failing that, the folder slug read back as
a path (`home-dev-shop` → `/home/dev/shop`, which cannot tell a `-` in a name from a `/`).
Sub-agent transcripts (a `subagents/` folder) are not read as sessions.

The IDE keeps chats in `<User>/globalStorage/state.vscdb` (SQLite), table `cursorDiskKV` (older
builds: `ItemTable`): `composerData:<composerId>` lists a chat's bubbles in order
(`fullConversationHeadersOnly`, or inline `conversation`), each `bubbleId:<composerId>:<bubbleId>`
a message: `type` 1 is the person's (a prompt), 2 the assistant's (`text`, and `toolFormerData`
`{name, rawArgs|params, status}` for a tool). A chat's project is the `workspace.json` folder of
the workspace whose own `state.vscdb` lists the chat in `composer.composerData`. Every database
is opened read-only with a short busy timeout (history.importers.sqlite_files): Cursor may have it
open, and it is never locked for writing, written or created.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import (
    DraftReader,
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    json_objects,
    parse_timestamp,
)
from history.importers.editors import NO_FOLDER, app_data, workspace_folder
from history.importers.sqlite_files import read_only, tables
from history.importers.tool_calls import ToolKinds, apply_call

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
USER_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
WORKSPACE = re.compile(r"Workspace Path:\s*(\S[^\n]*)")
TAGGED = re.compile(r"<(\w+)>.*?</\1>", re.DOTALL)  # context the agent wraps around a prompt
STATE_DB = "state.vscdb"


class Cursor(TranscriptFormat):
    name = "cursor"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        ide = app_data(places) / "Cursor" / "User" / "globalStorage" / STATE_DB
        return [places.home / ".cursor" / "projects", ide]

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            for path in sorted(root.rglob("*")):
                transcript = path.suffix == ".jsonl" and "agent-transcripts" in path.parts
                ide = path.name == STATE_DB and path.parent.name == "globalStorage"
                if ((transcript and "subagents" not in path.parts) or ide) and path.is_file():
                    yield path

    def read(self, path: Path) -> ReadReport:
        if path.suffix == ".jsonl":
            return _Transcript(path).run()
        return _read_ide(path)


def _blocks(line: dict[str, Any]) -> list[dict[str, Any]]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else line.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _slug_path(path: Path) -> str:
    parts = path.parts
    if "agent-transcripts" not in parts:
        return ""
    slug = parts[parts.index("agent-transcripts") - 1]
    return "/" + slug.strip("-").replace("-", "/")


def _chat_created(transcript: Path) -> datetime | None:
    """When the chat of a transcript began: `createdAt` in the meta of its store.db
    (`~/.cursor/chats/<workspace hash>/<chatId>/store.db`, meta values hex-encoded JSON)."""
    parts = transcript.parts
    if "projects" not in parts:
        return None
    cursor_home = Path(*parts[: parts.index("projects")])
    for store in sorted(cursor_home.glob(f"chats/*/{transcript.stem}/store.db")):
        try:
            with read_only(store) as db:
                values = [value for (value,) in db.execute("SELECT value FROM meta")]
        except sqlite3.Error:
            continue
        for value in values:
            meta = _json(_unhex(value))
            if isinstance(meta, dict) and meta.get("createdAt") is not None:
                return _time(meta["createdAt"], datetime.fromtimestamp(0, UTC))
    return None


def _unhex(value: object) -> object:
    text = value.decode("ascii", errors="replace") if isinstance(value, bytes) else value
    try:
        return bytes.fromhex(text).decode("utf-8") if isinstance(text, str) else text
    except ValueError:
        return text


class _Transcript(DraftReader):
    """An agent transcript. Its lines carry no times: every turn has the time its chat began
    (from the chat's store.db), else the file's modification time."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session_id = path.stem
        self.project = ""
        self.prompts = 0
        self.started = _chat_created(path) or file_time(path)

    def run(self) -> ReadReport:
        unknown = 0
        for line in json_objects(self.path, self.report):
            role = line.get("role")
            if role == "user":
                self.user(line)
            elif role == "assistant":
                self.assistant(line)
            else:
                unknown += 1
        if unknown:
            self.report.skipped += unknown
            self.report.problems.append(
                f"{unknown} line(s) in {self.path.name} were neither user nor assistant lines."
            )
        self.close()
        return self.report

    def user(self, line: dict[str, Any]) -> None:
        blocks = _blocks(line)
        text = "\n\n".join(
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        if not self.project:
            found = WORKSPACE.search(text)
            self.project = found.group(1).strip() if found else _slug_path(self.path)
        queries = USER_QUERY.findall(text)
        asked = "\n\n".join(q for q in queries if q) if queries else TAGGED.sub("", text).strip()
        if not asked:
            if self.current is not None:
                for block in blocks:
                    if block.get("type") == "tool_result" and block.get("is_error"):
                        self.current.failed(str(block.get("content") or "error"))
            return
        self.close()
        self.current = TurnDraft(
            turn_id=f"cursor:{self.session_id}:{self.prompts}",
            session_id=self.session_id,
            project=self.project,
            asked=asked,
            asked_at=parse_timestamp(line.get("timestamp")) or self.started,
        )
        self.prompts += 1

    def assistant(self, line: dict[str, Any]) -> None:
        if self.current is None:
            return
        for block in _blocks(line):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                self.current.say(block["text"])
            elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                apply_call(self.current, block["name"], block.get("input"), KINDS)


def _json(value: object) -> Any:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    try:
        return json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _read_ide(path: Path) -> ReadReport:
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
            data = _json(value)
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
        data = _json(row[0]) if row else None
        composers = data.get("allComposers") if isinstance(data, dict) else None
        for entry in composers if isinstance(composers, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("composerId"), str):
                found[entry["composerId"]] = folder
    return found


def _time(value: object, fallback: datetime) -> datetime:
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
    started = _time(composer.get("createdAt"), file_time(path))
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
                _time(bubble.get("createdAt"), started),
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

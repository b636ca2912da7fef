"""Cursor: the CLI agent's transcripts and the IDE's chats.

The agent writes `~/.cursor/projects/<slug>/agent-transcripts/<chatId>.jsonl`, one
`{role, message: {content: [text | tool_use | tool_result]}}` a line; the person's words are the
`<user_query>` of a user line (a line of only tool results is not a prompt). Its project is the
`Workspace Path:` the agent states in the user text; failing that, the folder slug read back as
a path (`home-dev-shop` → `/home/dev/shop`, which cannot tell a `-` in a name from a `/`).
Sub-agent transcripts (a `subagents/` folder) are not read as sessions.

The IDE keeps chats in `<User>/globalStorage/state.vscdb`, read by history.importers.cursor_ide.
"""

from __future__ import annotations

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
    first_records,
    json_objects,
    parse_timestamp,
)
from history.importers.cursor_ide import KINDS, STATE_DB, json_value, moment, read_ide
from history.importers.editors import app_data
from history.importers.sqlite_files import read_only
from history.importers.tool_calls import apply_call

USER_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
WORKSPACE = re.compile(r"Workspace Path:\s*(\S[^\n]*)")
TAGGED = re.compile(r"<(\w+)>.*?</\1>", re.DOTALL)  # context the agent wraps around a prompt


class Cursor(TranscriptFormat):
    name = "cursor"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        ide = app_data(places) / "Cursor" / "User" / "globalStorage" / STATE_DB
        return [places.home / ".cursor" / "projects", ide]

    def claims(self, path: Path) -> bool:
        """Cursor agent transcripts: lines with a `role` and a `message` object, and no type."""
        return any(
            line.get("type") is None and "role" in line and isinstance(line.get("message"), dict)
            for line in first_records(path)
        )

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
        return read_ide(path)


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
            meta = json_value(_unhex(value))
            if isinstance(meta, dict) and meta.get("createdAt") is not None:
                return moment(meta["createdAt"], datetime.fromtimestamp(0, UTC))
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

"""Goose (Block) sessions: `sessions/sessions.db` in current versions (SQLite: `sessions` with
`id`, `working_dir`; `messages` with `session_id`, `role`, `content_json`, `created_timestamp`),
and the `sessions/<id>.jsonl` files of older ones, which newer versions import into the database.
The folder is `$XDG_DATA_HOME/goose` (`~/.local/share/goose`) on Linux, `~/Library/Application
Support/Block/goose` on macOS and `%APPDATA%\\Block\\goose\\data` on Windows.

A JSONL file's first line is its metadata (`working_dir`: the project); each later line, like each
database row, is a message `{role, created (epoch s), content: [...]}`. A `user` message with text
is a prompt (one holding only `toolResponse` parts is a tool's result, and one marked not
`userVisible` was not typed by the person). The answer is every assistant `text`; tools are the
`toolRequest` parts (`toolCall.value {name, arguments}`, names `extension__tool`), and a
`toolResponse` whose `toolResult` has status `error` logs a failure. The database is opened
read-only with a short busy timeout.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import (
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    first_records,
    json_objects,
)
from history.importers.editors import NO_FOLDER
from history.importers.sqlite_files import read_only
from history.importers.tool_calls import ToolKinds, apply_call, arguments

KINDS = ToolKinds(shell=frozenset({"developer__shell", "shell"}))
EDITOR = frozenset({"developer__text_editor", "text_editor"})
DATABASE = "sessions.db"


class Goose(TranscriptFormat):
    name = "goose"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        if places.system == "Darwin":
            return [places.home / "Library/Application Support/Block/goose/sessions"]
        if places.system == "Windows":
            appdata = places.env.get("APPDATA")
            base = Path(appdata) if appdata else places.home / "AppData" / "Roaming"
            return [base / "Block" / "goose" / "data" / "sessions"]
        data = places.env.get("XDG_DATA_HOME")
        return [(Path(data) if data else places.home / ".local" / "share") / "goose" / "sessions"]

    def claims(self, path: Path) -> bool:
        """Goose's JSONL sessions: a first line naming its `working_dir`, messages with a
        `role` and a `created` time."""
        return any(
            "working_dir" in line or ("role" in line and "created" in line)
            for line in first_records(path)
        )

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            found = (p for p in root.rglob("*") if p.parent == root or p.parent.name == "sessions")
            yield from sorted(
                p for p in found if (p.suffix == ".jsonl" or p.name == DATABASE) and p.is_file()
            )

    def read(self, path: Path) -> ReadReport:
        if path.suffix == ".jsonl":
            return _read_jsonl(path)
        return _read_database(path)


def _read_jsonl(path: Path) -> ReadReport:
    report = ReadReport()
    lines = json_objects(path, report)
    first = next(lines, None)
    if first is None:
        return report
    project = str(first.get("working_dir") or "") if "role" not in first else ""
    messages = lines if "role" not in first else _chain([first], lines)
    _Session(path.stem, project, path, report).read(messages)
    return report


def _chain(*parts: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for part in parts:
        yield from part


def _read_database(path: Path) -> ReadReport:
    report = ReadReport()
    try:
        with read_only(path) as db:
            projects = dict(db.execute("SELECT id, working_dir FROM sessions").fetchall())
            rows = db.execute(
                "SELECT session_id, role, content_json, created_timestamp FROM messages "
                "ORDER BY session_id, created_timestamp, id"
            ).fetchall()
    except sqlite3.Error as error:
        report.problems.append(f"Could not read the Goose database {path.name}: {error}.")
        return report
    by_session: dict[str, list[dict[str, Any]]] = {}
    for session, role, content, created in rows:
        report.lines += 1
        try:
            parts = json.loads(content)
        except (TypeError, ValueError):
            report.skipped += 1
            continue
        message = {"role": role, "created": created, "content": parts}
        by_session.setdefault(str(session), []).append(message)
    if report.skipped:
        report.problems.append(f"{report.skipped} message(s) in {path.name} were not JSON.")
    for session, messages in by_session.items():
        _Session(session, str(projects.get(session) or ""), path, report).read(messages)
    return report


class _Session:
    def __init__(self, session: str, project: str, path: Path, report: ReadReport) -> None:
        self.session, self.path, self.report = session, path, report
        self.project = project or NO_FOLDER
        self.current: TurnDraft | None = None
        self.prompts = 0

    def read(self, messages: Iterable[dict[str, Any]]) -> None:
        for message in messages:
            content = message.get("content")
            parts = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []
            if message.get("role") == "user":
                self.user(message, parts)
            elif message.get("role") == "assistant" and self.current is not None:
                self.assistant(parts, self.current)
        if self.current is not None:
            self.report.turns.append(self.current.finish())

    def user(self, message: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        for part in parts:
            result = part.get("toolResult")
            result = result if isinstance(result, dict) else {}
            failed = part.get("type") == "toolResponse" and result.get("status") == "error"
            if failed and self.current is not None:
                self.current.failed(str(result.get("error") or "error"))
        meta = message.get("metadata")
        if isinstance(meta, dict) and meta.get("userVisible") is False:
            return
        texts = [p.get("text") for p in parts if p.get("type") == "text"]
        text = "\n\n".join(t.strip() for t in texts if isinstance(t, str)).strip()
        if not text:
            return
        if self.current is not None:
            self.report.turns.append(self.current.finish())
        created = message.get("created")
        when = (
            datetime.fromtimestamp(created, UTC)
            if isinstance(created, (int, float)) and not isinstance(created, bool)
            else file_time(self.path)
        )
        self.current = TurnDraft(
            f"goose:{self.session}:{self.prompts}", self.session, self.project, text, when
        )
        self.prompts += 1

    def assistant(self, parts: list[dict[str, Any]], turn: TurnDraft) -> None:
        for part in parts:
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                turn.say(part["text"])
            elif part.get("type") == "toolRequest":
                call = part.get("toolCall")
                value = call.get("value") if isinstance(call, dict) else None
                if isinstance(value, dict) and isinstance(value.get("name"), str):
                    self.call(value["name"], arguments(value.get("arguments")), turn)

    def call(self, name: str, args: dict[str, Any], turn: TurnDraft) -> None:
        if name in EDITOR:  # one tool whose `command` says view, write, str_replace or insert
            command = args.get("command")
            turn.use_tool(name)
            path = args.get("path")
            if isinstance(path, str) and command == "view":
                turn.touch(path)
            elif isinstance(path, str) and command in ("write", "str_replace", "insert"):
                text = args.get("file_text") or args.get("new_str") or ""
                turn.write_file(path, text if isinstance(text, str) else "")
            return
        apply_call(turn, name, args, KINDS)

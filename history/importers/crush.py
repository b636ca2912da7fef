"""Crush sessions: `<project>/.crush/crush.db`, one SQLite database per project.

`sessions` rows {id, parent_session_id, title, created_at, …} and `messages` rows {id,
session_id, role, parts, created_at, …}, where `parts` is a JSON array of `{type, data}`:
`text` {text}, `reasoning`, `tool_call` {id, name, input (a JSON string)}, `tool_result`
{tool_call_id, name, content, is_error}, `finish`, …. Tool results come back in `tool`
messages. A turn is a `user` message with text through the messages before the next one; each
assistant `text` is part of the answer. The database is opened read-only (`mode=ro`, a short
busy timeout) and never locked: Crush may have it open.

A sub-agent (the `agent` tool) runs as a child session whose id ends with `$$<tool call id>`
and whose `parent_session_id` is the session that launched it; its tools fold into the turn
that made that call. The project is the folder holding `.crush`, or the path Crush's
`projects.json` (in its data folder) lists for a data directory kept elsewhere; failing both,
the database's folder.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import Places, ReadReport, TranscriptFormat, TurnDraft, file_time

DATABASE = "crush.db"
DATA_FOLDER = ".crush"
WEB_TOOLS = frozenset({"download", "agentic_fetch", "sourcegraph", "web_fetch", "web_search"})
EDIT_TOOLS = frozenset({"write", "edit", "multiedit"})


def _time(value: object) -> datetime | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, UTC)


def _data_home(places: Places) -> Path:
    if places.system == "Windows":
        local = places.env.get("LOCALAPPDATA")
        return Path(local) if local else places.home / "AppData" / "Local"
    data = places.env.get("XDG_DATA_HOME") or ""
    return Path(data) if data and Path(data).is_absolute() else places.home / ".local" / "share"


def _registered(places: Places) -> dict[str, str]:
    """Crush's `projects.json`: each data directory with the project path it belongs to."""
    try:
        data = json.loads((_data_home(places) / "crush" / "projects.json").read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    found = {}
    for item in projects if isinstance(projects, list) else []:
        if isinstance(item, dict) and isinstance(item.get("path"), str):
            folder = item.get("data_dir") or str(Path(item["path"]) / DATA_FOLDER)
            found[str(folder)] = item["path"]
    return found


class Crush(TranscriptFormat):
    name = "crush"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        roots = [Path.cwd() / DATA_FOLDER]
        roots += [Path(folder) for folder in _registered(places)]
        return list(dict.fromkeys(roots))

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            yield from sorted(path for path in root.rglob(DATABASE) if path.is_file())

    def claims(self, path: Path) -> bool:
        return path.name == DATABASE

    def sessions_in(self, path: Path) -> int:
        try:
            with _open(path) as db:
                sql = "SELECT count(*) FROM sessions WHERE coalesce(parent_session_id, '') = ''"
                return int(db.execute(sql).fetchone()[0])
        except sqlite3.Error:
            return 0

    def read(self, path: Path) -> ReadReport:
        report = ReadReport()
        try:
            if path.is_dir():
                raise IsADirectoryError(21, "a folder, not a database")
            with _open(path) as db:
                _Reader(db, report, path, _project(path)).run()
        except (OSError, sqlite3.Error) as error:
            why = error.strerror if isinstance(error, OSError) else str(error)
            report.problems.append(f"Could not read {path}: {why or 'unreadable'}.")
        return report


class _Closing(sqlite3.Connection):
    def __exit__(self, *exc: object) -> None:  # type: ignore[override]
        self.close()


def _open(path: Path) -> _Closing:
    db = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.2, factory=_Closing
    )
    db.execute("PRAGMA busy_timeout = 200")
    db.row_factory = sqlite3.Row
    return db


def _project(path: Path) -> str:
    folder = path.resolve().parent
    listed = _registered(Places.here()).get(str(folder))
    if listed:
        return listed
    return str(folder.parent) if folder.name == DATA_FOLDER else str(folder)


class _Reader:
    def __init__(self, db: sqlite3.Connection, report: ReadReport, path: Path, project: str):
        self.db, self.report, self.path, self.project = db, report, path, project
        self.by_call: dict[str, TurnDraft] = {}
        self.drafts: list[TurnDraft] = []  # finished once every sub-agent has folded in

    def run(self) -> None:
        rows = self.db.execute("SELECT * FROM sessions ORDER BY created_at, id")
        sessions = [dict(zip(row.keys(), row, strict=True)) for row in rows]
        children = []
        for session in sessions:
            if session.get("parent_session_id"):
                children.append(session)
            else:
                self.session(str(session["id"]))
        for child in children:
            call = str(child["id"]).rpartition("$$")[2]
            turn = self.by_call.get(call)
            if turn is not None:
                for role, parts, _ in self.messages(str(child["id"])):
                    if role == "assistant":
                        self.assistant(parts, turn, answer=False)
        self.report.turns += [draft.finish() for draft in self.drafts]

    def messages(self, session_id: str) -> Iterator[tuple[str, list[dict[str, Any]], object]]:
        sql = (
            "SELECT role, parts, created_at FROM messages WHERE session_id = ?"
            " ORDER BY created_at, rowid"
        )
        for row in self.db.execute(sql, (session_id,)):
            self.report.lines += 1
            try:
                parts = json.loads(row["parts"] or "[]")
            except (ValueError, TypeError):
                parts = None
            if not isinstance(parts, list):
                self.report.skipped += 1
                self.report.problems.append(
                    f"A message of session {session_id} in {self.path.name} has unreadable parts."
                )
                continue
            parts = [
                {"type": p.get("type"), **p["data"]}
                for p in parts
                if isinstance(p, dict) and isinstance(p.get("data"), dict)
            ]
            yield str(row["role"]), parts, row["created_at"]

    def session(self, session_id: str) -> None:
        turn: TurnDraft | None = None
        number = 0
        for role, parts, created in self.messages(session_id):
            if role == "user":
                texts = [str(p.get("text") or "").strip() for p in parts if p["type"] == "text"]
                asked = "\n\n".join(text for text in texts if text)
                if not asked:
                    continue
                turn = TurnDraft(
                    turn_id=f"crush:{session_id}:{number}",
                    session_id=session_id,
                    project=self.project,
                    asked=asked,
                    asked_at=_time(created) or file_time(self.path),
                )
                number += 1
                self.drafts.append(turn)
            elif turn is not None:
                self.assistant(parts, turn, answer=role == "assistant")

    def assistant(self, parts: list[dict[str, Any]], turn: TurnDraft, answer: bool) -> None:
        for part in parts:
            if part["type"] == "text" and answer:
                turn.say(str(part.get("text") or ""))
            elif part["type"] == "tool_call" and isinstance(part.get("name"), str):
                self.by_call[str(part.get("id"))] = turn
                self.tool(part["name"], part.get("input"), turn)
            elif part["type"] == "tool_result" and part.get("is_error"):
                turn.failed(str(part.get("content") or f"{part.get('name')} failed"))

    @staticmethod
    def tool(name: str, raw: object, turn: TurnDraft) -> None:
        turn.use_tool(name)
        turn.tainted = turn.tainted or name in WEB_TOOLS
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return
        if not isinstance(args, dict):
            return
        path = args.get("file_path")
        if name == "bash" and isinstance(args.get("command"), str):
            turn.run_shell(args["command"])
        elif name in EDIT_TOOLS and isinstance(path, str):
            listed = args.get("edits")
            edits: list[Any] = listed if isinstance(listed, list) else [args]
            added = [
                str(e.get("new_string") or e.get("content") or "")
                for e in edits
                if isinstance(e, dict)
            ]
            removed = [str(e.get("old_string") or "") for e in edits if isinstance(e, dict)]
            turn.write_file(path, "\n".join(added), "\n".join(removed))
        elif name == "download" and isinstance(path, str):
            turn.touch(path, edit=True)
        elif isinstance(path, str):
            turn.touch(path)

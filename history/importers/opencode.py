"""OpenCode sessions: `~/.local/share/opencode/opencode.db` and the legacy `storage/` tree.

Both hold the same objects. Legacy: `storage/session/<projectID>/<sessionID>.json`,
`storage/message/<sessionID>/<messageID>.json` and `storage/part/<messageID>/<partID>.json`
(the names are authoritative, ids sort by time). Current: the SQLite `opencode.db`, whose
`session`, `message` and `part` rows keep ids and times as columns and the rest of each object as
JSON in `data`. The database is opened read-only (`mode=ro`, a short busy timeout): OpenCode may
be writing it, and it is never locked or changed here. When a folder has both, the database is
read (OpenCode copied the tree into it once).

A turn is a `user` message (its non-synthetic `text` parts) through the `assistant` messages
before the next one; each assistant `text` part is part of the answer. Tools are `tool` parts
(`state.input`, `state.status` `error` with `state.error`); `patch` parts name edited files. A
sub-agent runs as a child session (`parentID`): its tools fold into the turn whose `task` call
names it (`state.metadata.sessionId`), and it is not read as a session of its own.
The project is the session's `directory` (without one: the folder of the file read).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import Places, ReadReport, TranscriptFormat, TurnDraft, file_time

DATABASE = "opencode.db"
WEB_TOOLS = frozenset({"webfetch", "websearch", "codesearch"})
BUSY_MS = 200


def _ms(value: object) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return datetime.fromtimestamp(value / 1000, UTC)
    return None


class Store:
    """Sessions, their messages and their parts, from the tree or from the database."""

    def sessions(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def parts(self, session_id: str) -> dict[str, list[dict[str, Any]]]:
        """Each message id's parts, in order."""
        raise NotImplementedError


class TreeStore(Store):
    def __init__(self, storage: Path, report: ReadReport, only: Path | None = None) -> None:
        self.storage, self.report, self.only = storage, report, only

    def load(self, path: Path) -> dict[str, Any] | None:
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            self.report.skipped += 1
            self.report.problems.append(f"{path.name} in {path.parent} is not readable JSON.")
            return None
        self.report.lines += 1
        if not isinstance(value, dict):
            return None
        value["id"] = path.stem  # the file name is authoritative
        return value

    def sessions(self) -> list[dict[str, Any]]:
        paths = [self.only] if self.only else sorted(self.storage.glob("session/*/*.json"))
        return [s for s in map(self.load, paths) if s is not None]

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        paths = sorted((self.storage / "message" / session_id).glob("*.json"))
        return [m for m in map(self.load, paths) if m is not None]

    def parts(self, session_id: str) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for message in self.messages(session_id):
            paths = sorted((self.storage / "part" / message["id"]).glob("*.json"))
            found[message["id"]] = [p for p in map(self.load, paths) if p is not None]
        return found


class DatabaseStore(Store):
    def __init__(self, path: Path, report: ReadReport) -> None:
        self.report = report
        self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.2)
        self.db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        self.db.row_factory = sqlite3.Row

    def rows(self, sql: str, *args: object) -> Iterator[dict[str, Any]]:
        for row in self.db.execute(sql, args):
            item = dict(zip(row.keys(), row, strict=True))
            try:
                data = json.loads(item.pop("data", None) or "{}")
            except ValueError:
                data = None
            self.report.lines += 1
            if not isinstance(data, dict):
                self.report.skipped += 1
                continue
            yield {**data, **{k: v for k, v in item.items() if v is not None}}

    def sessions(self) -> list[dict[str, Any]]:
        found = []
        for row in self.rows("SELECT * FROM session ORDER BY time_created, id"):
            row.setdefault("parentID", row.get("parent_id"))
            found.append(row)
        return found

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        sql = "SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id"
        return list(self.rows(sql, session_id))

    def parts(self, session_id: str) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        sql = "SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id"
        for part in self.rows(sql, session_id):
            found.setdefault(str(part.get("message_id") or part.get("messageID")), []).append(part)
        return found


class OpenCode(TranscriptFormat):
    name = "opencode"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        data = places.env.get("XDG_DATA_HOME") or ""
        base = Path(data) if data and Path(data).is_absolute() else places.home / ".local/share"
        if places.system == "Windows" and places.env.get("USERPROFILE") and not data:
            base = Path(places.env["USERPROFILE"]) / ".local" / "share"
        return [base / "opencode"]

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
            return
        databases = sorted(root.rglob(DATABASE)) if root.is_dir() else []
        yield from databases
        folders = {db.parent for db in databases}
        for path in sorted(root.rglob("session/*/*.json")) if root.is_dir() else []:
            storage = path.parents[2]
            if storage.name == "storage" and storage.parent not in folders and _top(path):
                yield path

    def claims(self, path: Path) -> bool:
        if path.name == DATABASE:
            return True
        return (
            path.suffix == ".json"
            and path.parent.parent.name == "session"
            and (path.stem.startswith("ses_") or path.parents[2].name == "storage")
        )

    def sessions_in(self, path: Path) -> int:
        if path.name != DATABASE:
            return 1
        report = ReadReport()
        try:
            return sum(1 for s in DatabaseStore(path, report).sessions() if not s.get("parentID"))
        except sqlite3.Error:
            return 0

    def read(self, path: Path) -> ReadReport:
        report = ReadReport()
        try:
            if path.is_dir():
                raise IsADirectoryError(21, "a folder, not a session file")
            if path.name == DATABASE or path.suffix == ".db":
                database = DatabaseStore(path, report)
                try:
                    _Reader(database, report, path).run()
                finally:
                    database.db.close()
            else:
                storage = path.parents[2] if len(path.parents) > 2 else path.parent
                _Reader(TreeStore(storage, report, only=path), report, path).run()
        except (OSError, sqlite3.Error) as error:
            why = error.strerror if isinstance(error, OSError) else str(error)
            report.problems.append(f"Could not read {path}: {why or 'unreadable'}.")
        return report


def _top(path: Path) -> bool:
    """A session file that is not a sub-agent's (no `parentID`)."""
    try:
        return not json.loads(path.read_text(encoding="utf-8")).get("parentID")
    except (OSError, ValueError, AttributeError, UnicodeDecodeError):
        return True  # read it, and let the reader say what is wrong


class _Reader:
    def __init__(self, store: Store, report: ReadReport, path: Path) -> None:
        self.store, self.report, self.path = store, report, path

    def run(self) -> None:
        for session in self.store.sessions():
            if not session.get("parentID"):
                self.session(session)

    def session(self, session: dict[str, Any]) -> None:
        session_id = str(session["id"])
        project = str(session.get("directory") or self.path.parent)
        parts = self.store.parts(session_id)
        turn: TurnDraft | None = None
        for message in self.store.messages(session_id):
            own = parts.get(str(message["id"]), [])
            if message.get("role") == "user":
                asked = "\n\n".join(
                    str(p["text"]).strip()
                    for p in own
                    if p.get("type") == "text"
                    and isinstance(p.get("text"), str)
                    and not p.get("synthetic")
                    and p["text"].strip()
                )
                if not asked:
                    continue
                if turn is not None:
                    self.report.turns.append(turn.finish())
                time = message.get("time")
                created = time.get("created") if isinstance(time, dict) else None
                turn = TurnDraft(
                    turn_id=f"opencode:{session_id}:{message['id']}",
                    session_id=session_id,
                    project=project,
                    asked=asked,
                    asked_at=_ms(created)
                    or _ms(message.get("time_created"))
                    or file_time(self.path),
                )
            elif message.get("role") == "assistant" and turn is not None:
                self.assistant(own, turn, answer=True)
        if turn is not None:
            self.report.turns.append(turn.finish())

    def assistant(self, parts: list[dict[str, Any]], turn: TurnDraft, answer: bool) -> None:
        for part in parts:
            kind = part.get("type")
            if kind == "text" and answer and not part.get("synthetic"):
                turn.say(str(part.get("text") or ""))
            elif kind == "patch" and isinstance(part.get("files"), list):
                for path in part["files"]:
                    if isinstance(path, str):
                        turn.touch(path, edit=True)
            elif kind == "tool" and isinstance(part.get("tool"), str):
                self.tool(part["tool"], part.get("state"), turn)

    def tool(self, name: str, state: object, turn: TurnDraft) -> None:
        turn.use_tool(name)
        turn.tainted = turn.tainted or name in WEB_TOOLS
        if not isinstance(state, dict):
            return
        given = state.get("input")
        args: dict[str, Any] = given if isinstance(given, dict) else {}
        path = args.get("filePath")
        if name == "bash" and isinstance(args.get("command"), str):
            turn.run_shell(args["command"])
        elif name == "write" and isinstance(path, str):
            turn.write_file(path, str(args.get("content") or ""))
        elif name == "edit" and isinstance(path, str):
            replaced = str(args.get("oldString") or "")
            turn.write_file(path, str(args.get("newString") or ""), replaced)
        elif name == "patch" and isinstance(args.get("patchText"), str):
            turn.apply_patch(args["patchText"])
        elif name == "read" and isinstance(path, str):
            turn.touch(path)
        if state.get("status") == "error":
            turn.failed(str(state.get("error") or f"{name} failed"))
        metadata = state.get("metadata")
        child = metadata.get("sessionId") if isinstance(metadata, dict) else None
        if name == "task" and isinstance(child, str) and child:
            self.fold(child, turn)

    def fold(self, session_id: str, turn: TurnDraft) -> None:
        parts = self.store.parts(session_id)
        for message in self.store.messages(session_id):
            if message.get("role") == "assistant":
                self.assistant(parts.get(str(message["id"]), []), turn, answer=False)

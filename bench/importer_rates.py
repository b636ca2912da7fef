"""Each reader's rate, in turns per second, on a large generated file of its format.

    python -m bench.importer_rates [--turns 20000] [--format NAME ...]

prints one JSON object a line: {format, turns, seconds, turns_per_second, bytes}. GENERATORS is
a table keyed by format name, one function per format that writes `turns` turns (a prompt, an
answer, a read, an edit and a shell command each) under a folder and returns the path to read.
The SQLite writers lay a database out as the agent does (tests use them too).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from history.importers import FORMATS

T0_MS = 1_767_261_600_000  # 2026-01-01T10:00:00Z
PROJECT = "/home/dev/bench"


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"


def _line(value: object) -> str:
    return json.dumps(value, separators=(",", ":")) + "\n"


def _call(call: str, name: str, args: dict[str, str], key: str, text: str = "ok") -> object:
    """A Gemini CLI tool call with its result (`key` "error": a failed one)."""
    response = [{"functionResponse": {"id": call, "name": name, "response": {key: text}}}]
    status = "error" if key == "error" else "success"
    return {"id": call, "name": name, "args": args, "status": status, "result": response}


def gemini_jsonl(folder: Path, turns: int) -> Path:
    path = folder / ".gemini" / "tmp" / "bench" / "chats" / "session-2026-01-01T10-00-bench.jsonl"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as out:
        out.write(_line({"sessionId": "bench", "projectHash": "0" * 64, "kind": "main"}))
        for n in range(turns):
            at = _iso(T0_MS + n * 60_000)
            out.write(
                _line({"id": f"u{n}", "timestamp": at, "type": "user", "content": f"fix bug {n}"})
            )
            file = f"{PROJECT}/src/m{n % 50}.py"
            calls = [
                _call(f"r{n}", "read_file", {"file_path": file}, "output", "x = 1"),
                _call(f"w{n}", "replace", {"file_path": file, "new_string": f"x = {n}"}, "output"),
                _call(f"s{n}", "run_shell_command", {"command": "pytest -q"}, "error", "1 failed"),
            ]
            out.write(
                _line(
                    {
                        "id": f"g{n}",
                        "timestamp": at,
                        "type": "gemini",
                        "content": "",
                        "toolCalls": calls,
                    }
                )
            )
            out.write(
                _line(
                    {
                        "id": f"g{n}",
                        "timestamp": at,
                        "type": "gemini",
                        "content": f"Fixed bug {n} in m{n % 50}.py.",
                        "toolCalls": calls,
                    }
                )
            )
    return path


def qwen_code_jsonl(folder: Path, turns: int) -> Path:
    path = folder / ".qwen" / "projects" / "-home-dev-bench" / "chats" / "bench.jsonl"
    path.parent.mkdir(parents=True)
    parent = None
    with path.open("w", encoding="utf-8") as out:
        for n in range(turns):
            at = _iso(T0_MS + n * 60_000)
            edit = {"file_path": f"{PROJECT}/src/m{n % 50}.py", "new_string": f"x = {n}"}
            failed = {"error": "1 failed"}
            steps = [
                ("user", "user", [{"text": f"fix bug {n}"}]),
                ("assistant", "model", [
                    {"text": f"Fixing bug {n}."},
                    {"functionCall": {"id": f"c{n}", "name": "edit", "args": edit}},
                    {"functionCall": {"id": f"d{n}", "name": "run_shell_command",
                                      "args": {"command": "pytest -q"}}},
                ]),
                ("tool_result", "user", [{"functionResponse": {
                    "id": f"d{n}", "name": "run_shell_command", "response": failed}}]),
                ("assistant", "model", [{"text": f"Fixed bug {n}."}]),
            ]  # fmt: skip
            for k, (kind, role, parts) in enumerate(steps):
                uuid = f"q{n}-{k}"
                record = {
                    "uuid": uuid,
                    "parentUuid": parent,
                    "sessionId": "bench",
                    "timestamp": at,
                    "type": kind,
                    "cwd": PROJECT,
                    "message": {"role": role, "parts": parts},
                }
                out.write(_line(record))
                parent = uuid
    return path


OPENCODE_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT, vcs TEXT, time_created INTEGER,
    time_updated INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT,
    directory TEXT, title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER,
    time_updated INTEGER, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
    time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_session_idx ON part (session_id);
"""

Objects = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]


def write_opencode_db(path: Path, sessions: Objects) -> None:
    """An `opencode.db` (WAL, as OpenCode keeps it) holding sessions, messages and parts."""
    infos, messages, parts = sessions
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(OPENCODE_SCHEMA)
    for s in infos:
        db.execute(
            "INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (s["id"], s.get("projectID"), s.get("parentID"), s.get("slug"), s.get("directory"),
             s.get("title"), s.get("version"), s["time"]["created"], s["time"]["updated"]),
        )  # fmt: skip
    for m in messages:
        data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
        created = m["time"]["created"]
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (m["id"], m["sessionID"], created, created, json.dumps(data)),
        )
    for p in parts:
        data = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (p["id"], p["messageID"], p["sessionID"], T0_MS, T0_MS, json.dumps(data)),
        )
    db.commit()
    db.close()


def opencode_tree(storage: Path) -> Objects:
    """The sessions, messages and parts of a legacy `storage/` tree, as the migration reads
    them (ids from the file names)."""

    def load(pattern: str) -> list[dict[str, Any]]:
        found = []
        for path in sorted(storage.glob(pattern)):
            found.append({**json.loads(path.read_text("utf-8")), "id": path.stem})
        return found

    return load("session/*/*.json"), load("message/*/*.json"), load("part/*/*.json")


def opencode_db(folder: Path, turns: int) -> Path:
    infos = [
        {"id": "ses_bench", "directory": PROJECT, "time": {"created": T0_MS, "updated": T0_MS}}
    ]
    messages: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for n in range(turns):
        at = T0_MS + n * 60_000
        user, reply = f"msg_{n:06d}a", f"msg_{n:06d}b"
        messages += [
            {"id": user, "sessionID": "ses_bench", "role": "user", "time": {"created": at}},
            {"id": reply, "sessionID": "ses_bench", "role": "assistant", "parentID": user,
             "time": {"created": at + 1}},
        ]  # fmt: skip
        file = f"{PROJECT}/src/m{n % 50}.py"
        done, failed = {"status": "completed"}, {"status": "error", "error": "1 failed"}
        turn_parts: list[tuple[str, dict[str, Any]]] = [
            (user, {"type": "text", "text": f"fix bug {n}"}),
            (reply, {"type": "tool", "tool": "read",
                     "state": {**done, "input": {"filePath": file}}}),
            (reply, {"type": "tool", "tool": "edit",
                     "state": {**done, "input": {"filePath": file, "newString": f"x = {n}"}}}),
            (reply, {"type": "tool", "tool": "bash",
                     "state": {**failed, "input": {"command": "pytest -q"}}}),
            (reply, {"type": "text", "text": f"Fixed bug {n}."}),
        ]  # fmt: skip
        for k, part in enumerate(turn_parts):
            parts.append(
                {"id": f"prt_{n:06d}{k}", "sessionID": "ses_bench", "messageID": part[0], **part[1]}
            )
    path = folder / "opencode.db"
    write_opencode_db(path, (infos, messages, parts))
    return path


CRUSH_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0,
    summary_message_id TEXT, updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
    parts TEXT NOT NULL DEFAULT '[]', model TEXT, provider TEXT,
    is_summary_message INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, finished_at INTEGER);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL,
    content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL);
CREATE INDEX idx_messages_session_id ON messages (session_id);
"""

CrushMessage = tuple[str, str, list[dict[str, Any]]]  # id, role, parts ({type, data})


def write_crush_db(path: Path, sessions: dict[tuple[str, str | None], list[CrushMessage]]) -> None:
    """A `crush.db`: each (session id, parent session id) with its messages, in order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(CRUSH_SCHEMA)
    at = T0_MS
    for (session, parent), messages in sessions.items():
        db.execute(
            "INSERT INTO sessions (id, parent_session_id, title, message_count, updated_at,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (session, parent, session, len(messages), at, at),
        )
        for message, role, parts in messages:
            at += 1000
            db.execute(
                "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (message, session, role, json.dumps(parts), at, at),
            )
    db.commit()
    db.close()


def crush_db(folder: Path, turns: int) -> Path:
    messages: list[CrushMessage] = []
    for n in range(turns):
        file = f"{PROJECT}/src/m{n % 50}.py"
        edit = json.dumps({"file_path": file, "old_string": "a", "new_string": f"x = {n}"})
        shell = json.dumps({"command": "pytest -q"})
        messages += [
            (f"m{n}a", "user", [{"type": "text", "data": {"text": f"fix bug {n}"}}]),
            (f"m{n}b", "assistant", [
                {"type": "text", "data": {"text": f"Fixing bug {n}."}},
                {"type": "tool_call", "data": {"id": f"c{n}", "name": "edit", "input": edit}},
                {"type": "tool_call", "data": {"id": f"d{n}", "name": "bash", "input": shell}},
            ]),
            (f"m{n}c", "tool", [{"type": "tool_result", "data": {"tool_call_id": f"d{n}",
                "name": "bash", "content": "1 failed", "is_error": True}}]),
            (f"m{n}d", "assistant", [{"type": "text", "data": {"text": f"Fixed bug {n}."}}]),
        ]  # fmt: skip
    path = folder / "bench" / ".crush" / "crush.db"
    write_crush_db(path, {("bench", None): messages})
    return path


GENERATORS: dict[str, Callable[[Path, int], Path]] = {
    "gemini": gemini_jsonl,
    "qwen-code": qwen_code_jsonl,
    "opencode": opencode_db,
    "crush": crush_db,
}


def rates(names: list[str], turns: int) -> Iterator[dict[str, object]]:
    for name in names:
        with tempfile.TemporaryDirectory() as folder:
            path = GENERATORS[name](Path(folder), turns)
            started = time.perf_counter()
            report = FORMATS[name].read(path)
            seconds = time.perf_counter() - started
            assert len(report.turns) == turns, (name, len(report.turns), report.problems[:3])
            yield {
                "format": name,
                "turns": turns,
                "seconds": round(seconds, 3),
                "turns_per_second": round(turns / seconds),
                "bytes": path.stat().st_size,
            }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument("--format", action="append", choices=sorted(GENERATORS))
    args = parser.parse_args()
    for row in rates(args.format or list(GENERATORS), args.turns):
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()

"""The SQLite stores: Goose's sessions.db and the Cursor IDE's state.vscdb, read while their owner
has them open and is writing, without taking a lock that would stop it and without a byte
written to them or beside them."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from history import HistoryIndex
from history.importers import FORMATS
from history.importers.run import import_transcripts
from tests.helpers.importing import counts, stored
from tests.helpers.paths import IMPORTERS

GOOSE_JSONL = IMPORTERS / "goose/sessions/20261205_garden.jsonl"
VSCODE_TABLE = "(key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"  # VS Code's state.vscdb
COMPOSER = "4c3b2a19-0f8e-4d7c-b6a5-948372615040"


def goose_db(path: Path) -> Path:
    """The fixture's session as a current Goose keeps it in sessions.db."""
    meta, *messages = (json.loads(line) for line in GOOSE_JSONL.read_text().splitlines())
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', "
            "description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL, "
            "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}')"
        )
        db.execute(
            "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT "
            "NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL, "
            "created_timestamp INTEGER NOT NULL, metadata_json TEXT)"
        )
        db.execute(
            "INSERT INTO sessions (id, description, working_dir) VALUES (?, ?, ?)",
            ("20261205_garden", meta["description"], meta["working_dir"]),
        )
        db.executemany(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
            "VALUES ('20261205_garden', ?, ?, ?)",
            [(m["role"], json.dumps(m["content"]), m["created"]) for m in messages],
        )
    return path


def bubble(kind: int, text: str = "", tool: dict[str, object] | None = None) -> dict[str, object]:
    found: dict[str, object] = {"_v": 3, "type": kind, "text": text, "richText": ""}
    if tool is not None:
        found["toolFormerData"] = tool
    return found


def tool(
    name: str, args: dict[str, str], status: str = "completed", result: str = ""
) -> dict[str, object]:
    return {
        "tool": 5,
        "name": name,
        "rawArgs": json.dumps(args),
        "status": status,
        "result": result,
    }


BUBBLES = [
    ("b1", bubble(1, "Why is the checkout button grey?")),
    ("b2", bubble(2, "", tool("read_file", {"target_file": "/home/dev/shop/web/checkout.css"}))),
    ("b3", bubble(2, "It is `disabled` until the form is valid.")),
    ("b4", bubble(1, "Make it blue and check the brand guide online")),
    ("b5", bubble(2, "", tool("edit_file", {"target_file": "web/checkout.css",
                                            "code_edit": ".checkout { color: #0044cc; }"}))),
    ("b6", bubble(2, "", tool("web_search", {"search_term": "shop brand guide blue"}))),
    ("b7", bubble(2, "", tool("run_terminal_cmd", {"command": "npm run build"}, "error",
                              "build failed: missing token"))),
    ("b8", bubble(2, "Done; the brand blue is #0044cc.")),
]  # fmt: skip


def cursor_user(folder: Path) -> Path:
    """A Cursor `User` folder: the global state.vscdb holding one chat, and the workspace that
    lists it. Returns the global database."""
    workspace = folder / "workspaceStorage" / "a1b2c3"
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text('{"folder": "file:///home/dev/shop"}')
    with closing(sqlite3.connect(workspace / "state.vscdb")) as db, db:
        db.execute(f"CREATE TABLE ItemTable {VSCODE_TABLE}")
        composers = {"allComposers": [{"composerId": COMPOSER, "name": "Checkout"}]}
        db.execute(
            "INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps(composers),)
        )
    (folder / "globalStorage").mkdir()
    path = folder / "globalStorage" / "state.vscdb"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(f"CREATE TABLE ItemTable {VSCODE_TABLE}")
        db.execute(f"CREATE TABLE cursorDiskKV {VSCODE_TABLE}")
        composer = {
            "_v": 3,
            "composerId": COMPOSER,
            "createdAt": 1764997200000,
            "fullConversationHeadersOnly": [
                {"bubbleId": bid, "type": value["type"]} for bid, value in BUBBLES
            ],
        }
        rows = [(f"composerData:{COMPOSER}", json.dumps(composer))]
        rows += [(f"bubbleId:{COMPOSER}:{bid}", json.dumps(value)) for bid, value in BUBBLES]
        db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    return path


def test_cursor_ide_chat_turns(tmp_path: Path) -> None:
    report = FORMATS["cursor"].read(cursor_user(tmp_path / "User"))
    assert report.problems == []
    why, blue = report.turns
    assert (why.asked, why.answered) == (
        "Why is the checkout button grey?",
        "It is `disabled` until the form is valid.",
    )
    assert (why.files, why.edited, why.project) == (("web/checkout.css",), (), "/home/dev/shop")
    assert blue.edited == ("web/checkout.css",) and blue.tainted  # web_search
    assert {"edit_file", "web_search", "run_terminal_cmd"} <= set(blue.tools)
    assert "! build failed: missing token" in blue.work and "$ npm run build" in blue.work
    assert why.turn_id == f"cursor:{COMPOSER}:0" and why.asked_at.year == 2025


def test_goose_database_gives_the_turns_its_jsonl_gave(tmp_path: Path) -> None:
    from_db = FORMATS["goose"].read(goose_db(tmp_path / "sessions.db"))
    assert from_db.problems == [] and from_db.turns == FORMATS["goose"].read(GOOSE_JSONL).turns


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@contextmanager
def writing(path: Path, journal: str) -> Iterator[sqlite3.Connection]:
    """The owner, in the middle of a write transaction on `path`."""
    owner = sqlite3.connect(path, isolation_level=None)
    owner.execute(f"PRAGMA journal_mode = {journal}")
    owner.execute("BEGIN IMMEDIATE")
    owner.execute(
        "INSERT INTO sessions (id, working_dir) VALUES ('other', '/x')"
        if path.name == "sessions.db"
        else "INSERT INTO cursorDiskKV VALUES ('k', 'v')"
    )
    try:
        yield owner
    finally:
        owner.close()


@pytest.mark.parametrize("journal", ["delete", "wal"])
@pytest.mark.parametrize("fmt", ["cursor", "goose"])
def test_a_database_is_read_while_its_owner_writes_without_a_lock_or_a_byte_written(
    fmt: str, journal: str, tmp_path: Path
) -> None:
    path = cursor_user(tmp_path / "User") if fmt == "cursor" else goose_db(tmp_path / "sessions.db")
    with writing(path, journal) as owner:
        before = snapshot(path.parent)
        report = FORMATS[fmt].read(path)
        assert snapshot(path.parent) == before  # nothing written, nothing created beside it
        owner.execute("COMMIT")  # the owner was never kept waiting
    assert report.problems == [] and len(report.turns) == 2


def test_a_database_locked_exclusively_is_a_problem_at_once_not_a_wait(tmp_path: Path) -> None:
    path = cursor_user(tmp_path / "User")
    owner = sqlite3.connect(path, isolation_level=None)
    owner.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    report = FORMATS["cursor"].read(path)
    assert time.monotonic() - started < 2
    owner.execute("ROLLBACK")
    owner.close()
    assert report.turns == [] and len(report.problems) == 1
    assert "state.vscdb" in report.problems[0]


def test_a_damaged_database_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    for fmt, name in (("cursor", "state.vscdb"), ("goose", "sessions.db")):
        path = tmp_path / name
        path.write_bytes(b"SQLite format 3\x00" + bytes(200))
        report = FORMATS[fmt].read(path)
        assert report.turns == [] and len(report.problems) == 1


@pytest.mark.parametrize("fmt", ["cursor", "goose"])
def test_database_sessions_through_the_import_run(
    index: HistoryIndex, fmt: str, tmp_path: Path
) -> None:
    path = cursor_user(tmp_path / "User") if fmt == "cursor" else goose_db(tmp_path / "sessions.db")
    expected = FORMATS[fmt].read(path).turns
    assert counts(import_transcripts(index, [FORMATS[fmt]], path)) == (2, 0, 0, 0, 0)
    assert all(stored(index, turn) for turn in expected)
    assert counts(import_transcripts(index, [FORMATS[fmt]], path)) == (0, 0, 2, 0, 0)


def test_a_goose_database_that_grows_adds_only_the_new_turns_and_forgotten_stays_forgotten(
    index: HistoryIndex, tmp_path: Path
) -> None:
    path = goose_db(tmp_path / "sessions.db")
    goose = [FORMATS["goose"]]
    assert counts(import_transcripts(index, goose, path)) == (2, 0, 0, 0, 0)
    with closing(sqlite3.connect(path)) as db, db:
        rows = [
            ("user", [{"type": "text", "text": "When should I plant the tomatoes?"}], 1764950200),
            (
                "assistant",
                [{"type": "text", "text": "Plant them after the last frost."}],
                1764950210,
            ),
        ]
        db.executemany(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
            "VALUES ('20261205_garden', ?, ?, ?)",
            [(role, json.dumps(content), created) for role, content, created in rows],
        )
    assert counts(import_transcripts(index, goose, path)) == (1, 0, 2, 0, 0)
    assert index.forget_session("20261205_garden") == 3
    assert counts(import_transcripts(index, goose, path)) == (0, 0, 0, 3, 0)

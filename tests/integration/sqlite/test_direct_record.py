"""`recall hook` writes a current SQLite file through the driver alone (history/direct_record.py,
history/store/sqlite/direct.py): what it stores must be what HistoryIndex stores, row for row,
and a file that needs more than a write must go the whole way."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from history import HistoryIndex, rules_version
from history.direct_record import DirectRecorder, direct_recorder
from history.domain import Turn
from history.prepare import RecordCounts
from history.store import rescan
from history.store.sqlite import direct
from history.store.sqlite.connection import set_up, sqlite_driver
from tests.helpers.direct_turns import TOKEN, turn
from tests.helpers.templates import new_index


def base_turns(root: Path) -> list[Turn]:
    return [
        turn("t-same", "s1", str(root / "p"), 3, files=("a.py",)),
        turn("t-upd", "s1", str(root / "p"), 2, edited=("b.py",)),
        turn("t-gone", "s-gone", str(root / "p"), 2),
        turn("t-q", "s2", str(root / "q"), 1),
    ]


def new_turns(root: Path) -> list[Turn]:
    """New, updated and unchanged turns, a secret in an id and in text, a forgotten session, a
    turn past its project's retention, a new project, the same id twice (the last wins)."""
    same = base_turns(root)[0]
    return [
        same,
        turn("t-upd", "s1", str(root / "p"), 2, edited=("b.py",), answered="now with argon2id"),
        turn(
            "t-new",
            "s1",
            str(root / "p"),
            0.5,
            tainted=True,
            files=("c.py", "a.py"),
            edited=("c.py",),
            tools=("Bash", "Edit"),
            work="$ pytest -q\n~ c.py\n+ def parse_config():",
        ),
        turn("t-secret", f"sess-{TOKEN}", str(root / "p"), 0.2, asked=f"use {TOKEN} please"),
        turn("t-forgotten", "s-gone", str(root / "p"), 0.1),
        turn("t-old", "s2", str(root / "q"), 400),
        turn("t-r", "s3", str(root / "r"), 0.3, edited=("x.py", "y.py")),
        turn("t-dup", "s3", str(root / "r"), 0.4, answered="first"),
        turn("t-dup", "s3", str(root / "r"), 0.4, answered="second, kept"),
    ]


def make_home(home: Path, root: Path) -> Path:
    """A home as the index leaves it: turns, a forgotten conversation, a retention setting."""
    home.mkdir(parents=True)
    (home / "history.id-key").write_bytes(b"k" * 32)
    (home / "history.id-key").chmod(0o600)
    index = new_index(home / "history.db")
    index.record_many(base_turns(root))
    index.forget_session("s-gone")
    index.set_retention(30, str(root / "q"))
    index.tidy()
    index.close()
    return home / "history.db"


TABLES = {
    "turns": "SELECT * FROM turns ORDER BY id",
    "conversations": "SELECT * FROM conversations ORDER BY session_id, project",
    "conversation_edits": "SELECT * FROM conversation_edits ORDER BY session_id, project, path",
    "projects": "SELECT * FROM projects ORDER BY project",
    "forgotten": "SELECT session_id FROM forgotten_sessions ORDER BY session_id",
    "word_counts": "SELECT * FROM word_counts ORDER BY word",
    "fts_docsize": "SELECT * FROM turns_fts_docsize ORDER BY id",
    "project_tags": "SELECT id, project_tag FROM turns ORDER BY id",
}


def table_rows(database: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite_driver().connect(str(database))
    try:
        set_up(conn, 5_000)  # the index's own functions: the check reads the indexed text
        conn.execute("INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')")
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        conn.close()


def searched(database: Path, project: str) -> list[list[tuple[str, float]]]:
    index = HistoryIndex.open(database)
    try:
        return [
            [(hit.turn_id, round(hit.score, 9)) for hit in index.search(query, scope, k=10)]
            for query in ("parser config", "argon2id", "pytest parse_config", "please", "first")
            for scope in (None, project)
        ]
    finally:
        index.close()


def both_ways(tmp_path: Path) -> tuple[Path, Path, RecordCounts, RecordCounts]:
    """The same turns recorded into two identical homes: directly, and through the index."""
    root = tmp_path / "work"
    direct_db = make_home(tmp_path / "direct", root)
    index_db = make_home(tmp_path / "index", root)
    recorder = direct_recorder(tmp_path / "direct")
    assert isinstance(recorder, DirectRecorder)

    def whole_path(*args: Any) -> RecordCounts:
        raise AssertionError("the file was current: it should have been written directly")

    recorder._whole_path = whole_path  # type: ignore[method-assign,assignment]
    direct_counts = recorder.record_many(new_turns(root))
    index = HistoryIndex.open(index_db)
    try:
        index_counts = index.record_many(new_turns(root))
    finally:
        index.close()
    return direct_db, index_db, direct_counts, index_counts


def test_a_turn_recorded_directly_is_stored_as_the_index_stores_it(tmp_path: Path) -> None:
    direct_db, index_db, direct_counts, index_counts = both_ways(tmp_path)
    assert direct_counts == index_counts
    assert (direct_counts.new, direct_counts.updated, direct_counts.unchanged) == (4, 1, 1)
    assert direct_counts.forgotten == 2  # the forgotten conversation's, the one past retention
    stored, expected = table_rows(direct_db), table_rows(index_db)
    for name in TABLES:
        assert stored[name] == expected[name], name
    assert len(stored["turns"]) == 7 and any("redacted" in str(row) for row in stored["turns"])
    project = str(tmp_path / "work" / "p")
    assert searched(direct_db, project) == searched(index_db, project)


def test_the_direct_path_counts_an_unchanged_turn_as_the_index_does(tmp_path: Path) -> None:
    root = tmp_path / "work"
    database = make_home(tmp_path / "home", root)
    recorder = direct_recorder(tmp_path / "home")
    assert recorder is not None
    recorder.record_many(new_turns(root))
    stored = table_rows(database)
    # Six ids (one of them twice) are stored; two turns are left out again.
    assert recorder.record_many(new_turns(root)) == RecordCounts(unchanged=6, forgotten=2)
    assert table_rows(database) == stored


def _set(database: Path, sql: str, *values: Any) -> None:
    conn = sqlite_driver().connect(str(database))
    try:
        set_up(conn, 5_000)
        conn.execute(sql, values)
    finally:
        conn.close()


FALLBACKS = {
    "an older revision": "UPDATE alembic_version SET version_num = '0017_retention'",
    "a forget's work owed": (
        "INSERT INTO forget_work (session_id, project, owed_at) "
        "VALUES ('s9', NULL, '2026-01-01 00:00:00.000000')"
    ),
    "a scrub owed": (
        "INSERT INTO owed_scrub (id, owed_at, rewrite_index, rewriting) "
        "VALUES (1, '2026-01-01 00:00:00.000000', 0, 0)"
    ),
    "a re-scan due": "UPDATE retention_settings SET keep_days = 1 WHERE project = ?",
    "secure-delete off": "INSERT INTO turns_fts(turns_fts, rank) VALUES ('secure-delete', 0)",
}


@pytest.mark.parametrize("case", FALLBACKS)
def test_a_file_that_needs_more_than_a_write_is_left_to_the_whole_path(
    tmp_path: Path, case: str
) -> None:
    root = tmp_path / "work"
    database = make_home(tmp_path / "home", root)
    sql = FALLBACKS[case]
    _set(database, sql, *([rules_version.VERSION_KEY] if "?" in sql else []))
    before = table_rows(database)["turns"] if case != "an older revision" else None
    prepared = [turn("t-x", "s1", str(root / "p"), 0.1)]
    assert direct.record_many(database, prepared) is None
    if before is not None:
        assert table_rows(database)["turns"] == before  # nothing written
    if case == "an older revision":
        conn = sqlite3.connect(database)
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        conn.close()
        assert version == "0017_retention"


def test_a_missing_read_only_or_named_database_is_not_written_directly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each is the index's to open (it makes, migrates, or says the file cannot be written)."""
    assert direct_recorder(tmp_path / "nothing-yet") is None
    database = make_home(tmp_path / "home", tmp_path / "work")
    assert direct_recorder(tmp_path / "home") is not None
    assert direct_recorder(tmp_path / "home", "sqlite:///elsewhere.db") is None
    monkeypatch.setenv("RECALL_DATABASE_URL", f"sqlite:///{database}")
    assert direct_recorder(tmp_path / "home") is None
    monkeypatch.delenv("RECALL_DATABASE_URL")
    # A file this process may not write (root may write any: its answer is stood in for).
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != database)
    assert direct_recorder(tmp_path / "home") is None


def test_the_direct_paths_filter_of_the_settings_agrees_with_the_rescans_own() -> None:
    """direct.py tells the re-scan's rows of the settings table from retention by their prefix
    (rules_version.RESERVED_PREFIX); rescan.reserved says which rows are the re-scan's."""
    for key in (rescan.VERSION_KEY, rescan._through_key()):
        assert rescan.reserved(key) and key.startswith(rules_version.RESERVED_PREFIX)
    assert not rescan.reserved("/" + rules_version.RESERVED_PREFIX)


HOOK = """
import json, sys
from history.cli import main
code = main(["hook", "claude-code"])
print(json.dumps([code, sorted(sys.modules)]))
"""


def test_a_hook_into_a_current_file_loads_no_sqlalchemy_and_is_found(tmp_path: Path) -> None:
    root = tmp_path / "work"
    make_home(tmp_path / "home", root)
    transcript = tmp_path / "session.jsonl"
    lines = [
        {
            "type": "user",
            "sessionId": "s-hook",
            "uuid": "u1",
            "cwd": str(root / "p"),
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "how should we hash passwords"},
        },
        {
            "type": "assistant",
            "sessionId": "s-hook",
            "uuid": "a1",
            "timestamp": "2026-01-01T00:00:05Z",
            "message": {"id": "m1", "content": [{"type": "text", "text": "With argon2id."}]},
        },
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    payload = json.dumps({"transcript_path": str(transcript), "hook_event_name": "Stop"})
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", HOOK], input=payload, capture_output=True, text=True, env=env
    )
    code, modules = json.loads(done.stdout)
    assert code == 0 and done.stderr == ""
    loaded = [m for m in modules if m.split(".")[0] in ("sqlalchemy", "alembic")]
    assert loaded == [] and "history.index" not in modules
    index = HistoryIndex.open(tmp_path / "home" / "history.db")
    try:
        assert [hit.session_id for hit in index.search("argon2id", None)] == ["s-hook"]
    finally:
        index.close()

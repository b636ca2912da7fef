"""Faults caused for real: a killed writer, a full disk, a read-only or broken file, a held lock.
Each time the caller's turn goes on and nothing already stored is lost."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.exc import DatabaseError

from history import HistoryIndex
from history.prepare import prepare
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite.doctor import index_agrees, table_problems
from tests.helpers.engines import engine_of
from tests.helpers.turns import raw_turn


def record(index: HistoryIndex, turn_id: str, asked: str = "login flow") -> bool:
    return index.record(turn_id=turn_id, session_id="s", project="/p", asked=asked, answered="ok")


def healthy(index: HistoryIndex) -> bool:
    return table_problems(engine_of(index)) == [] and index_agrees(engine_of(index))


def python(code: str, home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, "RECALL_HOME": str(home)},
        stdout=subprocess.PIPE,
        text=True,
    )


def test_a_writer_killed_mid_transaction_leaves_no_partial_turn(tmp_path: Path) -> None:
    writer = python(
        """
        import sys
        from datetime import UTC, datetime
        from history import history_for
        from history.importers.base import ImportedTurn
        from history.store.sqlite import engine
        # A small page cache spills the transaction's pages to the WAL early: the kill comes
        # mid-transaction after seconds, not after the 64 MiB an import's cache holds.
        engine.WRITER_CACHE_KIB = 2_000
        index = history_for()
        def turns():
            for n in range(15_000):
                yield ImportedTurn(turn_id=f"t-{n}", session_id="s", project="/p",
                                   asked=f"login {n} " * 50, answered="answer " * 200,
                                   files=("a.py",), edited=(), tools=("x",), tainted=False,
                                   asked_at=datetime.now(UTC))
        index.record_many(turns())
        """,
        tmp_path,
    )
    # Kill it once the one big transaction has written megabytes to the WAL, well before it ends.
    wal = tmp_path / "history.db-wal"
    deadline = time.monotonic() + 120
    while not (wal.exists() and wal.stat().st_size > 4_000_000):
        assert writer.poll() is None, "the writer finished before it could be killed"
        assert time.monotonic() < deadline, "the writer never got going"
        time.sleep(0.02)
    writer.send_signal(signal.SIGKILL)
    writer.wait(10)

    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.count() == 0  # killed before its one COMMIT: nothing of it, not a part
    assert healthy(index)
    assert record(index, "after") and index.search("login", project="/p")[0].turn_id == "after"
    index.close()


def test_disk_full_fails_the_record_not_the_turn_and_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    assert record(index, "before")
    engine = engine_of(index)

    def tiny_disk(dbapi_conn: object, record_form: object) -> None:
        pages = dbapi_conn.execute("PRAGMA page_count").fetchone()[0]  # type: ignore[attr-defined]
        dbapi_conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # type: ignore[attr-defined]

    event.listen(engine, "connect", tiny_disk)
    engine.dispose()
    with caplog.at_level(logging.WARNING):
        assert not record(index, "huge", asked="login " + "x" * 60_000)
    assert "huge" in caplog.text and "xxxx" not in caplog.text
    assert [hit.turn_id for hit in index.search("login")] == ["before"]

    event.remove(engine, "connect", tiny_disk)
    engine.dispose()
    assert record(index, "huge", asked="login " + "x" * 60_000)
    assert index.count() == 2 and healthy(index)
    index.close()


def test_read_only_database_searches_but_does_not_record(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    writable = HistoryIndex.open(path)
    assert record(writable, "t-1")
    writable.close()

    read_only = HistoryIndex.open(f"sqlite:///file:{path}?mode=ro&uri=true")
    assert [hit.turn_id for hit in read_only.search("login")] == ["t-1"]
    assert record(read_only, "t-2") is False
    assert read_only.count() == 1
    # The error the store raises names no turn text: bound parameters are hidden.
    repository = read_only._repository
    turn = prepare(raw_turn("t-3", "s", "/p", "canary-text-7731"))
    with pytest.raises(DatabaseError) as raised:
        repository.upsert(turn)
    assert "canary-text-7731" not in str(raised.value)
    read_only.close()


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"this is not a database, it is a note\n" * 200,
        lambda data: data[:100] + os.urandom(3000) + data[3100:],  # the schema page
        lambda data: b"SQLite format 3\x00" + os.urandom(len(data) - 16),
    ],
    ids=["not-a-database", "corrupt-schema-page", "corrupt-everything-after-the-magic"],
)
def test_a_broken_file_is_moved_aside_and_a_fresh_index_starts(
    tmp_path: Path, damage: object, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "history.db"
    index = HistoryIndex.open(path)
    assert record(index, "t-1")
    index.close()
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(path))
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    broken = damage(path.read_bytes())  # type: ignore[operator]
    path.write_bytes(broken)

    with caplog.at_level(logging.WARNING):
        fresh = HistoryIndex.open(path)
    assert "moved aside" in caplog.text
    (aside,) = tmp_path.glob("history.db.corrupt-*[0-9]Z")
    assert aside.read_bytes() == broken
    assert fresh.count() == 0 and record(fresh, "t-2") and fresh.count() == 1
    fresh.close()


def test_a_lock_held_by_another_process_fails_the_record_in_time(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db", busy_timeout_ms=300)
    assert record(index, "before")
    holder = python(
        f"""
        import time
        from history.store.sqlite.engine import sqlite_driver
        conn = sqlite_driver().connect({str(tmp_path / "history.db")!r}, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        print("holding", flush=True)
        time.sleep(5)
        """,
        tmp_path,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        started = time.monotonic()
        assert record(index, "blocked") is False
        assert time.monotonic() - started < 0.3 + 1.0
    finally:
        holder.kill()
        holder.wait(10)
    assert index.count() == 1 and healthy(index)
    assert record(index, "after")
    index.close()


def test_a_failing_redactor_writes_nothing_to_the_file(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str) -> str:
        raise RuntimeError("redactor bug")

    monkeypatch.setattr("history.prepare.redact", broken)
    assert record(index, "t-1", asked="my token is hunter2") is False
    monkeypatch.undo()
    assert index.count() == 0

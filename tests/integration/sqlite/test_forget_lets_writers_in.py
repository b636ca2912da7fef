"""A large forget sees the writers waiting on the lock and lets them in between its steps,
instead of pausing blindly after every step (history/store/sqlite/forgetting/writers.py); the
upkeep's merges do the same."""

from __future__ import annotations

import threading
import time
from contextlib import nullcontext
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex
from history.store.sqlite.engine import create_sqlite_engine, database_url, writer
from history.store.sqlite.forgetting import writers
from history.store.sqlite.forgetting.writers import WaitingWriters


def test_a_writer_in_its_transaction_is_seen_and_waited_for_until_it_commits(
    tmp_path: Path,
) -> None:
    db = tmp_path / "history.db"
    HistoryIndex.open(db).close()
    engine = create_sqlite_engine(database_url(db))
    forget = WaitingWriters(db)
    assert forget.let_in(1.0) is False  # nobody writes: no wait at all
    committed = threading.Event()
    seen: list[float] = []

    def look() -> None:
        started = time.monotonic()
        assert forget.let_in(5.0) is True
        seen.append(time.monotonic() - started)
        assert committed.is_set()

    with writer(engine).begin() as conn:
        conn.execute(text("CREATE TABLE t (x)"))
        looking = threading.Thread(target=look)
        looking.start()
        time.sleep(0.2)
        assert looking.is_alive()  # the forget waits while the writer writes
        committed.set()
    looking.join(5)
    assert seen and seen[0] < 1.0  # let through as soon as it was done, not at the limit
    engine.dispose()


def test_the_forgets_own_steps_and_readers_are_not_waited_for(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    HistoryIndex.open(db).close()
    engine = create_sqlite_engine(database_url(db))
    forget = WaitingWriters(db)
    with writer(engine, announced=False).begin() as conn:
        conn.execute(text("CREATE TABLE t (x)"))
        assert forget.let_in(1.0) is False
    with engine.connect() as conn:
        conn.execute(text("SELECT count(*) FROM t")).scalar_one()
        assert forget.let_in(1.0) is False
    engine.dispose()


def test_a_writer_that_cannot_be_seen_is_let_in_by_pauses(tmp_path: Path) -> None:
    assert writers.announce(None) is None  # an in-memory or URI database: nothing to lock
    assert WaitingWriters(None).let_in(1.0) is None
    folder = tmp_path / "missing"
    assert WaitingWriters(folder / "history.db").let_in(1.0) is None  # no file can be made


def test_a_writer_still_writing_at_the_limit_is_left_to_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    fd = writers.announce(db)
    assert fd is not None
    started = time.monotonic()
    assert WaitingWriters(db).let_in(0.1) is True
    assert 0.1 <= time.monotonic() - started < 1.0
    writers.done(fd)
    assert WaitingWriters(db).let_in(0.1) is False


def test_a_lock_held_past_the_limit_costs_the_next_steps_a_short_wait_only(
    tmp_path: Path,
) -> None:
    db = tmp_path / "history.db"
    fd = writers.announce(db)  # a process stopped in the middle of its transaction
    forget = WaitingWriters(db)
    assert forget.let_in(0.2) is True
    started = time.monotonic()
    for _ in range(10):
        assert forget.let_in(0.2) is True
    assert time.monotonic() - started < 1.0  # not 10 x 0.2 s
    writers.done(fd)
    assert forget.let_in(0.2) is False


def test_a_connection_returned_without_its_rollback_lets_go_of_its_lock(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    HistoryIndex.open(db).close()
    engine = create_sqlite_engine(database_url(db))
    conn = engine.connect()
    conn.execution_options(sqlite_begin="IMMEDIATE").begin()
    assert WaitingWriters(db).let_in(0.05) is True
    conn.invalidate()  # lost on an error: no commit or rollback reaches SQLite
    assert WaitingWriters(db).let_in(0.05) is False
    engine.dispose()


def test_the_upkeep_lets_waiting_writers_in_after_each_step_that_leaves_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The upkeep takes its steps back to back; at 1M a record of another process waited 2-3 s
    # behind merges of the index that SQLite's busy handler kept missing the gaps between.
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    for n in range(40):  # a segment each: merges to do
        index.record(turn_id=f"t{n}", session_id="s", project="/p", asked=f"ask {n}", answered="ok")
    looked: list[float] = []

    def let_in(self: WaitingWriters, limit: float) -> bool:
        looked.append(limit)
        return False

    monkeypatch.setattr(WaitingWriters, "let_in", let_in)
    steps = 0
    while index._maintenance.step(16, nullcontext()) == "more":
        steps += 1
    assert steps and len(looked) == steps
    index.close()

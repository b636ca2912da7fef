"""One index per home per process; private files; readers never wait for the writer."""

from __future__ import annotations

import os
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex, history_for
from tests.helpers.engines import engine_of


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_history_for_is_one_index_per_resolved_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with ThreadPoolExecutor(8) as pool:
        opened = list(pool.map(lambda _: history_for(home), range(16)))
    assert all(index is opened[0] for index in opened)
    assert history_for(str(home) + "/") is opened[0]
    assert history_for(tmp_path / "home" / ".." / "home") is opened[0]
    assert history_for(tmp_path / "other") is not opened[0]
    opened[0].close()
    assert history_for(home) is not opened[0]


def test_history_for_defaults_to_recall_home(tmp_path: Path) -> None:
    index = history_for()
    assert index.record(turn_id="t", session_id="s", project="/p", asked="login", answered="")
    assert (tmp_path / "recall-home" / "history.db").exists()


def test_home_is_0700_and_database_files_0600(tmp_path: Path) -> None:
    home = tmp_path / "private"
    index = history_for(home)
    index.record(turn_id="t", session_id="s", project="/p", asked="login", answered="ok")
    assert mode(home) == 0o700
    files = [p for p in home.iterdir() if p.name.startswith("history.db")]
    assert {p.name for p in files} >= {"history.db", "history.db-wal"}
    assert all(mode(p) == 0o600 for p in files), {p.name: oct(mode(p)) for p in files}


def test_open_makes_a_missing_home_0700_like_history_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    previous = os.umask(0o022)  # the usual umask, whatever the test runner's is
    try:
        index = HistoryIndex.open("~/.recall/history.db")
    finally:
        os.umask(previous)
    index.close()
    assert mode(tmp_path / ".recall") == 0o700
    assert mode(tmp_path / ".recall" / "history.db") == 0o600
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    HistoryIndex.open(shared / "history.db").close()
    assert mode(shared) == 0o755  # a folder that was there is the user's: left as it was


def test_database_is_in_wal_mode_with_a_busy_timeout(index: HistoryIndex) -> None:
    with engine_of(index).connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 5000


def test_a_reader_is_not_blocked_while_a_writer_holds_the_lock(index: HistoryIndex) -> None:
    index.record(turn_id="t-old", session_id="s", project="/p", asked="login flow", answered="")
    holding = threading.Event()
    release = threading.Event()

    def hold_write_lock() -> None:
        with engine_of(index).execution_options(sqlite_begin="IMMEDIATE").begin() as conn:
            conn.execute(text("UPDATE turns SET tainted = 1"))
            holding.set()
            release.wait(10)

    writer = threading.Thread(target=hold_write_lock)
    writer.start()
    assert holding.wait(5)
    try:
        hits = index.search("login")  # would wait for the lock without WAL
        assert [hit.turn_id for hit in hits] == ["t-old"]
        assert hits[0].tainted is False  # the reader sees the last committed state
    finally:
        release.set()
        writer.join()


def test_threads_recording_and_searching_lose_nothing(index: HistoryIndex) -> None:
    def record(n: int) -> bool:
        return index.record(
            turn_id=f"t-{n}",
            session_id=f"s-{n % 7}",
            project="/p",
            asked=f"login step {n}",
            answered="",
        )

    with ThreadPoolExecutor(4) as pool:
        searches = [pool.submit(index.search, "login", None, None, 10) for _ in range(20)]
        recorded = list(pool.map(record, range(200)))
    assert all(recorded) and all(len(f.result()) <= 10 for f in searches)
    assert index.count() == 200

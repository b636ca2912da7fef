"""Index upkeep: a record never merges the full-text index; upkeep does, once writes pause."""

from __future__ import annotations

import logging
import time
from contextlib import nullcontext
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from history import HistoryIndex, upkeep
from history.store.sqlite import fts, fts_levels, merges
from history.store.sqlite.maintenance import SqliteMaintenance
from history.upkeep import THREAD_STEP_PAGES
from tests.helpers.engines import engine_of
from tests.helpers.turns import raw_turn


def segments(index: HistoryIndex) -> int:
    with engine_of(index).connect() as conn:
        return fts_levels.segment_count(conn)


def record(index: HistoryIndex, count: int) -> None:
    for n in range(count):
        assert index.record(
            turn_id=f"t{n}", session_id="s", project="/p", asked=f"parser step {n}", answered=""
        )


@pytest.fixture
def paused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes never pause long enough for the upkeep thread."""
    monkeypatch.setattr(upkeep, "QUIET_SECONDS", 3600.0)


def test_a_record_leaves_merging_to_upkeep(tmp_path: Path, paused: None) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 100)  # FTS5's own merging would have started at 64 pages written
    assert segments(index) >= 100  # one segment a commit, none merged
    found = [hit.turn_id for hit in index.search("parser", k=100)]
    assert index.tidy() is True
    assert segments(index) < 8
    assert [hit.turn_id for hit in index.search("parser", k=100)] == found
    with engine_of(index).begin() as conn:  # the merged index is sound
        conn.exec_driver_sql(fts.integrity_check_statement())
    index.close()


def test_upkeep_merges_by_itself_once_writes_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upkeep, "QUIET_SECONDS", 0.05)
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 40)
    deadline = time.monotonic() + 20
    while segments(index) >= 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert segments(index) < 8
    index.close()


def test_closing_stops_upkeep_after_doing_what_it_can(tmp_path: Path, paused: None) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 40)
    thread = index._upkeep._thread
    assert thread is not None and thread.is_alive()
    index.close()
    assert not thread.is_alive()
    reopened = HistoryIndex.open(tmp_path / "history.db")
    assert segments(reopened) < 8
    reopened.close()


def test_failed_upkeep_is_logged_and_recording_goes_on(
    tmp_path: Path, paused: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def fail(self: SqliteMaintenance, pages: int, whole: bool) -> bool:
        raise OperationalError("merge", {}, Exception("disk I/O error"))

    monkeypatch.setattr(SqliteMaintenance, "_merge", fail)
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 3)
    with caplog.at_level(logging.WARNING, logger="history.upkeep"):
        assert index.tidy() is False
    assert "index upkeep failed: OperationalError" in caplog.text
    assert index.count() == 3
    index.close()


def spans(index: HistoryIndex) -> list[tuple[int, int, int]]:
    with engine_of(index).connect() as conn:
        return [span for level in fts_levels.levels(conn) for span in level.spans]


def test_the_upkeep_thread_leaves_a_large_merge_to_a_caller_who_waits(
    tmp_path: Path, paused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5 writes each common word's whole list of a segment it merges in one piece, whatever
    # its page budget: at 1M turns the thread's merges of the import's segment held the write
    # lock 114-242 ms, and a record of another process waited behind them. The thread's steps
    # merge what is small, or slow a page a statement (merges.py); a merge reading more waits
    # for a caller who waits for the upkeep (tidy, doctor).
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record_many(
        raw_turn(f"old-{n}", f"s{n % 20}", "/p", f"why the parser fails {n}", "a linker " * 40)
        for n in range(3000)
    )
    before = spans(index)
    with engine_of(index).connect() as conn:
        pick = fts_levels.merge_pick(fts_levels.levels(conn))
    assert pick is not None and pick.pages > 80 and len(before) >= 4
    # The import's segments read as one large merge (at 1M: the level of its 115,696 pages).
    monkeypatch.setattr(merges, "BOUNDS", fts_levels.Bounds(64, crowded=1_000, slow_pages=80))
    while index._maintenance.step(THREAD_STEP_PAGES, nullcontext()) != "done":
        pass
    assert spans(index) == before  # nothing merged, nothing trimmed by a merge under way
    assert len(index.search("parser", k=10)) == 10
    assert index.tidy()
    assert len(spans(index)) < len(before)  # merged by the caller who waited
    assert len(index.search("parser", k=10)) == 10
    index.close()

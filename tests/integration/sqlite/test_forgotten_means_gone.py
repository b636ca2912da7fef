"""Forgotten means gone: not in search results, and not in the database file or its WAL."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from history import HistoryIndex
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts, segment_keys
from history.store.sqlite.engine import writer
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import CANARY, FORGETS, assert_gone, file_bytes, fill, scrubbed_soon
from tests.helpers.turns import raw_turn


@pytest.fixture(params=["fts5-secure-delete", "fts5-optimize"])
def scrub_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fts5-optimize":
        monkeypatch.setattr(fts, "secure_delete_supported", lambda conn: False)
    return str(request.param)


@pytest.mark.parametrize("forget", FORGETS.values(), ids=FORGETS.keys())
def test_forgotten_text_is_in_neither_the_file_nor_the_wal(
    tmp_path: Path, scrub_mode: str, forget: Callable[[HistoryIndex], int]
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    assert CANARY[-8:].encode() in file_bytes(tmp_path)  # the check can see it when present
    assert forget(index) == 3
    assert index.search(CANARY, project=None) == []
    assert index.count() == 300 and not index.purge_pending
    assert_gone(tmp_path)
    assert forget(index) == 0  # idempotent
    index.close()


def test_deleting_without_the_purge_leaves_the_canary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Guards the test above: with the purge a no-op, the bytes are found.
    from history.store.sqlite.forgetting.forget import Forgetting

    monkeypatch.setattr(Forgetting, "scrub", lambda self, seconds: "done")
    monkeypatch.setattr(fts, "secure_delete_supported", lambda conn: False)
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    index.forget_session("doomed")
    assert CANARY[-8:].encode() in file_bytes(tmp_path)
    index.close()


def test_a_reader_holding_a_snapshot_delays_the_scrub_and_it_is_finished_later(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db", busy_timeout_ms=200)
    fill(index)
    # The same SQLite library as the index: two copies of SQLite in one process do not see
    # each other's POSIX locks.
    reader = sqlite_db.sqlite_driver().connect(str(tmp_path / "history.db"), isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM turns").fetchone() == (303,)
    try:
        assert index.forget_session("doomed") == 3
        assert index.search(CANARY, project=None) == []
        assert index.purge_pending
        assert "reader still holds an older snapshot" in caplog.text
    finally:
        reader.execute("COMMIT")
        reader.close()
    index.record(turn_id="next", session_id="next", project="/work/keep", asked="x", answered="")
    assert scrubbed_soon(index)
    assert_gone(tmp_path)
    index.close()


def test_tidy_is_not_done_while_a_reader_holds_the_scrub_back(tmp_path: Path) -> None:
    """Regression: tidy() answered True (nothing left) when the scrub's final checkpoint was
    blocked by a reader, so a caller closed the index believing the file scrubbed."""
    index = HistoryIndex.open(tmp_path / "history.db", busy_timeout_ms=200)
    fill(index)
    reader = sqlite_db.sqlite_driver().connect(str(tmp_path / "history.db"), isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM turns").fetchone()
    try:
        index.forget_session("doomed")
        assert index.purge_pending
        assert index.tidy() is False
    finally:
        reader.execute("COMMIT")
        reader.close()
    assert index.tidy() is True
    assert not index.purge_pending
    assert_gone(tmp_path)
    index.close()


def test_the_index_s_own_upkeep_never_blocks_its_scrub(tmp_path: Path) -> None:
    """Regression: a forget's scrub ran while this process's upkeep thread was in a step (a
    merge, a checkpoint), and on a loaded machine every try of the final checkpoint met it: the
    scrub was left owed though no other process read the file. Here the thread's step holds a
    snapshot far longer than the scrub's tries last."""
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    in_step = threading.Event()
    real_step = index._upkeep._step

    def slow_step(pages: int) -> bool:
        reader = sqlite_db.sqlite_driver().connect(str(tmp_path / "history.db"))
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM turns").fetchone()
            in_step.set()
            time.sleep(1.0)
        finally:
            reader.close()
        return real_step(pages)

    index._upkeep._step = slow_step
    index._upkeep._quiet_seconds = 0.0
    index._upkeep.wrote()  # the thread starts a step at once
    assert in_step.wait(10)
    assert index.forget_session("doomed") == 3
    assert not index.purge_pending, "the scrub was left owed"
    assert_gone(tmp_path)
    index.close()


def test_forget_from_another_thread_while_searching(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    errors: list[BaseException] = []

    def search() -> None:
        try:
            for _ in range(50):
                index.search("parsers secret", project=None, k=10)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=search) for _ in range(3)]
    for thread in threads:
        thread.start()
    assert index.forget_project("/work/doomed") == 3
    for thread in threads:
        thread.join()
    assert errors == []
    index.record(turn_id="next", session_id="next", project="/work/keep", asked="x", answered="")
    assert index.search(CANARY, project=None) == []
    assert scrubbed_soon(index)
    assert_gone(tmp_path)
    index.close()


def test_a_large_forget_rewrites_the_index_and_keeps_secure_delete_on(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    for n in range(150):
        index.record(
            turn_id=f"bulk-{n}",
            session_id=f"bulk-{n % 5}",
            project="/work/doomed",
            asked=f"more of the secret plan {CANARY}",
            answered="",
        )
    assert index.forget_project("/work/doomed") == 153
    assert index.search(CANARY, project=None) == [] and index.count() == 300
    assert_gone(tmp_path)
    with engine_of(index).connect() as conn:
        assert fts.secure_delete_enabled(conn)
    index.close()


# Words alike but for their last characters: the segment index keys a page by as much of its
# first word as tells it from the page before, here the whole word.
ALIKE = "zebracanaryquxvbt"


def alike_words_in_one_segment(path: Path) -> list[int]:
    """1,500 turns, each with a word of its own, imported at once (one segment of many pages):
    the turns whose word a key of the segment index holds whole."""
    index = HistoryIndex.open(path)
    index.record_many(
        raw_turn(f"t{n}", f"s{n}", "/p", f"note {ALIKE}{n:04d}", "yak") for n in range(1500)
    )
    assert index.tidy()
    index.close()
    with sqlite3.connect(path) as conn:
        keys = [bytes(key)[1:] for (key,) in conn.execute("SELECT term FROM turns_fts_idx")]
    whole = [key for key in keys if key.startswith(ALIKE.encode()) and len(key) == len(ALIKE) + 4]
    return [int(key[len(ALIKE) :]) for key in whole]


@pytest.mark.parametrize("looked_up", [True, False], ids=["keys-looked-up", "keys-all-read"])
@pytest.mark.parametrize("way", ["forget", "expire"])
def test_a_forgotten_word_first_on_an_index_page_leaves_no_key_behind(
    tmp_path: Path, way: str, looked_up: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5's secure-delete took the forgotten word off its page and left the page's key in the
    # segment index as it was: the word, whole, stayed in the file. The keys are found by a
    # lookup of each word in each segment, or (many words) in one read of them all.
    monkeypatch.setattr(segment_keys, "KEYS_A_LOOKUP", 0 if looked_up else 1_000_000)
    keyed = alike_words_in_one_segment(tmp_path / "history.db")
    assert keyed, "no page of the segment began with one of the words"
    doomed = keyed[0]
    index = HistoryIndex.open(tmp_path / "history.db")
    if way == "forget":
        assert index.forget_session(f"s{doomed}") == 1
    else:  # the one turn asked long ago, expired by age
        with writer(engine_of(index)).begin() as conn:
            long_ago = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=500)
            moved = "UPDATE turns SET asked_at = ? WHERE session_id = ?"
            conn.exec_driver_sql(moved, (long_ago, f"s{doomed}"))
        assert index.retain(400) == 1
    assert index.tidy()
    assert f"{ALIKE}{doomed:04d}".encode() not in file_bytes(tmp_path)
    for kept in (doomed - 1, doomed + 1):  # the words beside it are found as before
        (hit,) = index.search(f"{ALIKE}{kept:04d}")
        assert hit.turn_id == f"t{kept}"
    with writer(engine_of(index)).begin() as conn:
        conn.exec_driver_sql(fts.integrity_check_statement())
    index.close()

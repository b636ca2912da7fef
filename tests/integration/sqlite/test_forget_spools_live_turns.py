"""A live record never waits for a forget's step: past 40 ms it spools its turn beside the
database (history/store/sqlite/forgetting/spool.py), and the turn moves in between two steps.
The spool obeys forgetting, and a spooled turn outlives the process that spooled it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from history import HistoryIndex
from history.prepare import prepare
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite.engine import create_sqlite_engine, database_url, writer
from history.store.sqlite.forgetting.steps import SqliteScrub
from history.store.sqlite.repository import SqliteTurnRepository
from tests.helpers.cli_runs import recall
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import CANARY, assert_gone, fill
from tests.helpers.turns import raw_turn

# What one step of the forget holds the lock for here: a merge step reaching a word that is in
# nearly every turn (hundreds of ms at a million turns).
LONG_STEP_SECONDS = 0.4


def long_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    real = SqliteScrub._delete_batch

    def slow(self: SqliteScrub, conn: object) -> bool:
        deleted = real(self, conn)  # type: ignore[arg-type]
        if deleted:
            time.sleep(LONG_STEP_SECONDS)  # the lock is held meanwhile
        return deleted

    monkeypatch.setattr(SqliteScrub, "_delete_batch", slow)


def doomed_project(index: HistoryIndex, turns: int = 120) -> None:
    for n in range(turns):
        index.record(
            turn_id=f"bulk-{n}",
            session_id=f"bulk-{n % 5}",
            project="/work/doomed",
            asked=f"more of the plan {CANARY}",
            answered="",
        )


def repository(index: HistoryIndex) -> SqliteTurnRepository:
    found = index._repository
    assert isinstance(found, SqliteTurnRepository)
    return found


@pytest.mark.timing_sensitive  # a record's latency under 0.2 s, which a starved machine misses
def test_records_during_long_forget_steps_return_at_once_and_are_found_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "history.db"
    forgetting = HistoryIndex.open(db)
    fill(forgetting)
    doomed_project(forgetting)
    forgetting._upkeep.close()
    live = HistoryIndex.open(db)  # another connection, as another process's would be
    long_steps(monkeypatch)
    forget = threading.Thread(target=forgetting.forget_project, args=("/work/doomed",))
    forget.start()
    latencies, outcomes = [], []
    n = 0
    while forget.is_alive() or n < 5:
        started = time.monotonic()
        outcomes.append(
            live.record_outcome(
                turn_id=f"live-{n}",
                session_id="live",
                project="/work/live",
                asked=f"live turn {n} about the lexer",
                answered="",
            )
        )
        latencies.append(time.monotonic() - started)
        n += 1
        time.sleep(0.03)
    forget.join()
    assert None not in outcomes
    assert "spooled" in outcomes  # the steps held the lock 0.4 s each: these did not wait
    assert max(latencies) < LONG_STEP_SECONDS / 2, sorted(latencies)[-3:]
    assert not forgetting.purge_pending and repository(forgetting).spool.count() == 0
    found = {hit.turn_id for hit in live.search("lexer", k=500)}
    assert found == {f"live-{i}" for i in range(n)}
    assert forgetting.search(CANARY) == []
    assert_gone(tmp_path)
    live.close()
    forgetting.close()


def test_without_a_forget_a_record_waits_for_the_lock_as_before(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    engine = create_sqlite_engine(database_url(db))
    holding = threading.Event()

    def hold() -> None:
        with writer(engine, announced=False).begin() as conn:
            conn.exec_driver_sql("CREATE TABLE busy (x)")
            holding.set()
            time.sleep(0.3)  # an import's batch, say

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait()
    started = time.monotonic()
    assert index.record_outcome(turn_id="t", session_id="s", project="/p", asked="a", answered="")
    assert time.monotonic() - started >= 0.2  # it waited, and was written, not spooled
    holder.join()
    assert not (tmp_path / "history.db-spool").exists()
    assert index.turn("t") is not None
    engine.dispose()
    index.close()


def spool_directly(index: HistoryIndex, turn_id: str, session_id: str) -> None:
    """What a record does when a forget's step holds the lock: its turn, prepared, spooled."""
    turn = prepare(raw_turn(turn_id, session_id, "/work/spooled", f"spooled {CANARY}"))
    assert repository(index).spool.add(turn, lambda: True)


def test_a_turn_spooled_before_a_forget_of_its_conversation_is_forgotten_with_it(
    tmp_path: Path,
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    spool_directly(index, "early", "doomed")
    assert index.forget_session("doomed") == 4  # the three recorded and the spooled one
    assert index.search(CANARY) == [] and index.turn("early") is None
    assert repository(index).spool.count() == 0 and not index.purge_pending
    assert_gone(tmp_path)  # history.db*, the spool and its log included
    index.close()


def test_spooled_turns_outlive_their_process_and_the_next_one_moves_them_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    spool_directly(index, "kept", "s")
    index._upkeep.close()
    engine_of(index).dispose()  # the process dies here
    code, out, _ = recall(capsys, "--home", str(tmp_path), "stats", "--json")
    assert code == 0 and json.loads(out)["spooled"] == 1
    later = HistoryIndex.open(db)
    assert later.purge_pending  # the spool is owed work, as a forget's scrub is
    assert later.tidy()
    assert later.turn("kept") is not None and later.search(CANARY)
    assert repository(later).spool.count() == 0
    later.close()


def wal_frames(db: Path) -> tuple[int, int]:
    """The WAL's last frame and how many frames were copied back into the database, from the
    -shm file's header (SQLite's WalIndexHdr.mxFrame and WalCkptInfo.nBackfill)."""
    header = (db.parent / f"{db.name}-shm").read_bytes()[:104]
    return int.from_bytes(header[16:20], "little"), int.from_bytes(header[96:100], "little")


def test_a_record_during_a_forget_leaves_the_wal_to_the_forgets_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_db, "WAL_AUTOCHECKPOINT_PAGES", 2)  # any commit would copy back
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    doomed_project(index)
    index._upkeep.close()

    real_step = SqliteScrub.delete_step

    def crash(self: SqliteScrub) -> bool:
        raise KeyboardInterrupt  # a forget owed: its steps are to come

    monkeypatch.setattr(SqliteScrub, "delete_step", crash)
    with pytest.raises(KeyboardInterrupt):
        index.forget_project("/work/doomed")
    assert index.record(turn_id="a", session_id="s", project="/p", asked="a", answered="")
    last, copied = wal_frames(db)
    assert copied < last  # the record's commit copied nothing back: the forget will
    monkeypatch.setattr(SqliteScrub, "delete_step", real_step)
    assert index.tidy() and not index.purge_pending
    assert index.record(turn_id="b", session_id="s", project="/p", asked="b", answered="")
    last, copied = wal_frames(db)
    assert copied == last  # with no forget under way, a commit copies back as before
    index.close()

"""A large forget's index rewrite frees pages without zeroing them, then zeroes the free list
(history/store/sqlite/forgetting/zeroing.py): cut short there, the next process finishes it, and no
forgotten word is left on a free page."""

from __future__ import annotations

from pathlib import Path

import pytest

from history import HistoryIndex
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite.forgetting import zeroing
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import CANARY, canary_left, fill, scrubbed_soon


def doomed_project(index: HistoryIndex) -> None:
    for n in range(400):
        index.record(
            turn_id=f"bulk-{n}",
            session_id=f"bulk-{n % 4}",
            project="/work/doomed",
            asked=f"the plan {n} {CANARY} " + "filler words " * 30,
            answered=f"noted {CANARY}",
        )


def scratch_left(db: Path) -> bool:
    with sqlite_db.sqlite_driver().connect(str(db)) as peek:
        found = peek.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (zeroing.SCRATCH,))
        return found.fetchone() is not None


def test_a_forget_cut_short_while_zeroing_free_pages_is_finished_by_the_next_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    fill(index)
    doomed_project(index)
    index.tidy()
    real_step = zeroing.zero_step
    calls: list[bool] = []

    def crash_while_zeroing(conn: object, pages: int) -> bool:
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process dies with the free list half zeroed
        calls.append(real_step(conn, 1))  # type: ignore[arg-type]
        return True

    monkeypatch.setattr(zeroing, "zero_step", crash_while_zeroing)
    index._upkeep.close()  # only the forget touches the file from here on
    with pytest.raises(KeyboardInterrupt):
        index.forget_project("/work/doomed")
    monkeypatch.undo()
    assert calls == [True, True] and scratch_left(db)
    assert index.search(CANARY, project=None) == []
    engine_of(index).dispose()

    later = HistoryIndex.open(db)
    assert later.purge_pending
    assert later.tidy() and scrubbed_soon(later, 5)
    assert not canary_left(tmp_path) and not scratch_left(db)
    assert later.count() == 300
    later.close()


def test_the_rewrite_frees_pages_fast_and_leaves_secure_delete_on(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    fill(index)
    doomed_project(index)
    assert index.forget_project("/work/doomed") == 403
    assert not canary_left(tmp_path) and not scratch_left(db)
    engine = engine_of(index)
    assert engine is not None
    with engine.connect() as conn:  # the pooled connection the forget used
        assert conn.exec_driver_sql("PRAGMA secure_delete").scalar_one() == 1
    index.close()

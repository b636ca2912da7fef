"""A large forget's batches delete their turns with the summary, lists and word-count triggers
aside and mend those rows set by set (history/store/sqlite/bulk_forget.py): what they leave
must be exactly what deleting the same turns one row at a time, every trigger firing, leaves,
however the batches cut the conversations (times tie, conversations span two projects)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.sqlite import bulk_forget, repository
from history.store.sqlite.forgetting import SqliteScrub, StepSizes

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
paths = st.lists(st.sampled_from(["a.py", "b.py", "docs/c.md"]), max_size=3).map(tuple)
turns = st.builds(
    ImportedTurn,
    turn_id=st.sampled_from([f"t{n}" for n in range(30)]),
    session_id=st.sampled_from(["s0", "s1", "s2", "s3"]),
    project=st.sampled_from(["/p0", "/p1"]),
    asked=st.just("how do we hash passwords"),
    answered=st.sampled_from(["with argon2", "with bcrypt"]),
    files=paths,
    edited=paths,
    tools=st.just(()),
    tainted=st.booleans(),
    asked_at=st.integers(0, 5).map(lambda minutes: START + timedelta(minutes=minutes)),
)
forgets = st.one_of(
    st.tuples(st.just("project"), st.sampled_from(["/p0", "/p1"])),
    st.tuples(st.just("sessions"), st.lists(st.sampled_from(["s0", "s1", "s2"]), min_size=1)),
)
KEPT = ("projects", "conversations", "conversation_edits", "best_turns", "forgotten_sessions")


def kept(index: HistoryIndex) -> list[list[tuple[Any, ...]]]:
    assert index.engine is not None
    with index.engine.connect() as conn:
        tables = [sorted(map(tuple, conn.exec_driver_sql(f"SELECT * FROM {t}"))) for t in KEPT]
        # forgotten_at differs between the two files: keep the session ids only.
        tables[-1] = [row[:1] for row in tables[-1]]
        return tables


def with_lists(index: HistoryIndex) -> None:
    """A list row for every turn (the upkeep builds lists only at 10k turns and up)."""
    assert index.engine is not None
    with index.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO best_turns (word, turn_id, project, hits, length) "
                "SELECT 'hash', id, project, 1.0, 5 FROM turns"
            )
        )
        conn.execute(text("INSERT INTO word_counts (word, holding, turns) VALUES ('hash', 1, 1)"))


@contextmanager
def in_batches_of(turns_per_batch: int) -> Iterator[None]:
    """Every forget goes in batches, of this many turns each."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repository, "BULK_FORGET_TURNS", 0)
        patch.setattr(StepSizes, "adapted", staticmethod(lambda *_, **__: turns_per_batch))
        yield


def forget(index: HistoryIndex, what: tuple[str, Any]) -> int:
    kind, value = what
    return index.forget_project(value) if kind == "project" else index.forget_sessions(value)


@settings(max_examples=40, deadline=None)
@given(st.lists(turns, min_size=1, max_size=30), forgets, st.integers(1, 7))
def test_a_forget_in_batches_leaves_what_one_row_at_a_time_leaves(
    written: list[ImportedTurn], what: tuple[str, Any], per_batch: int
) -> None:
    with tempfile.TemporaryDirectory() as home:
        bulk = HistoryIndex.open(Path(home) / "bulk.db")
        rowwise = HistoryIndex.open(Path(home) / "rowwise.db")
        for index in (bulk, rowwise):
            index.record_many(written)
            with_lists(index)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(repository, "BULK_FORGET_TURNS", 10**9)  # one statement, triggers
            expected = forget(rowwise, what)
        bulk._repository._scrub.sizes.turns = per_batch  # type: ignore[attr-defined]
        with in_batches_of(per_batch):
            assert forget(bulk, what) == expected
        assert kept(bulk) == kept(rowwise)
        assert bulk.count(project=None) == rowwise.count(project=None)
        for index in (bulk, rowwise):
            assert index.engine is not None
            with index.engine.connect() as conn:
                assert conn.exec_driver_sql("SELECT count(*) FROM word_counts").scalar() == (
                    0 if expected else 1
                )
            index.close()


def test_outside_a_forgets_batches_every_trigger_fires(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record(turn_id="t1", session_id="s1", project="/p", asked="a", answered="b")
    with_lists(index)
    assert index.engine is not None
    with index.engine.begin() as conn:
        assert not conn.connection.info[bulk_forget.FLAG_FUNCTION].on
        conn.execute(text("DELETE FROM turns"))
        for table in ("projects", "conversations", "best_turns", "word_counts"):
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0
    index.close()


@settings(max_examples=40, deadline=None)
@given(st.lists(turns, min_size=10, max_size=30), forgets, st.integers(1, 4), st.integers(1, 3))
def test_a_forget_cut_short_between_batches_leaves_what_deleting_those_rows_leaves(
    written: list[ImportedTurn], what: tuple[str, Any], per_batch: int, batches: int
) -> None:
    """Conversations a batch cut in two: their summaries are the turns they have left."""
    with tempfile.TemporaryDirectory() as home:
        bulk = HistoryIndex.open(Path(home) / "bulk.db")
        rowwise = HistoryIndex.open(Path(home) / "rowwise.db")
        for index in (bulk, rowwise):
            index.record_many(written)
            with_lists(index)
        bulk._upkeep.close()  # type: ignore[attr-defined]
        scrub = bulk._repository._scrub  # type: ignore[attr-defined]
        scrub.sizes.turns = per_batch
        real_step = SqliteScrub.delete_step
        done: list[bool] = []

        def cut_short(self: SqliteScrub) -> bool:
            if len(done) == batches:
                raise KeyboardInterrupt  # the process dies between two batches
            done.append(real_step(self))
            return done[-1]

        with in_batches_of(per_batch), pytest.MonkeyPatch.context() as patch:
            patch.setattr(SqliteScrub, "delete_step", cut_short)
            with suppress(KeyboardInterrupt):  # the batches it did are what is compared
                forget(bulk, what)
        assert bulk.engine is not None and rowwise.engine is not None
        with bulk.engine.connect() as conn:
            left = set(conn.exec_driver_sql("SELECT turn_id FROM turns").scalars())
        with rowwise.engine.begin() as conn:
            for (turn_id,) in conn.exec_driver_sql("SELECT turn_id FROM turns").all():
                if turn_id not in left:
                    conn.exec_driver_sql("DELETE FROM turns WHERE turn_id = ?", (turn_id,))
        assert kept(bulk)[:-1] == kept(rowwise)[:-1]  # tombstones aside: rowwise has none
        bulk.close()
        rowwise.close()

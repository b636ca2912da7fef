"""record_many counts its new turns into the conversation and project summaries set by set, the
insert trigger stepping aside meanwhile: the summaries must be exactly those that recording the
same turns one at a time leaves (turn ids repeat, so some writes update; times tie)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.sqlite import summaries as summaries_sql
from tests.helpers.engines import engine_of
from tests.helpers.templates import migrated_copy
from tests.helpers.turns import raw_turn

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
paths = st.lists(st.sampled_from(["a.py", "b.py", "docs/c.md"]), max_size=4).map(tuple)
turns = st.builds(
    ImportedTurn,
    turn_id=st.sampled_from([f"t{n}" for n in range(12)]),
    session_id=st.sampled_from(["s0", "s1", "s2"]),
    project=st.sampled_from(["/p0", "/p1"]),
    asked=st.just("how do we hash passwords"),
    answered=st.sampled_from(["with argon2", "with bcrypt"]),
    files=paths,
    edited=paths,
    tools=st.just(()),
    tainted=st.booleans(),
    asked_at=st.integers(0, 4).map(lambda minutes: START + timedelta(minutes=minutes)),
)
batches = st.lists(st.lists(turns, max_size=8), min_size=1, max_size=4)
SUMMARIES = ("projects", "conversations", "conversation_edits")


def summaries(index: HistoryIndex) -> list[list[tuple[Any, ...]]]:
    with engine_of(index).connect() as conn:
        return [sorted(map(tuple, conn.exec_driver_sql(f"SELECT * FROM {t}"))) for t in SUMMARIES]


def one_at_a_time(index: HistoryIndex, batch: Sequence[ImportedTurn]) -> None:
    for turn in batch:
        assert index.record(**{name: getattr(turn, name) for name in turn.__dataclass_fields__})


@settings(max_examples=60, deadline=None)
@given(batches)
def test_bulk_writes_leave_the_summaries_single_writes_leave(
    written: list[list[ImportedTurn]],
) -> None:
    with tempfile.TemporaryDirectory() as home:
        bulk = HistoryIndex.open(migrated_copy(Path(home) / "bulk.db"))
        single = HistoryIndex.open(migrated_copy(Path(home) / "single.db"))
        for batch in written:
            bulk.record_many(batch)
            one_at_a_time(single, batch)
            assert summaries(bulk) == summaries(single)
        bulk.close()
        single.close()


def test_a_bulk_write_into_existing_conversations_counts_only_its_new_turns(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    first = raw_turn("t1", "s1", "/p", "q", "a", edited=("a.py",), asked_at=START)
    index.record_many([first])
    earlier = START - timedelta(1)
    later = raw_turn("t2", "s1", "/p", "q", "a", edited=("a.py",), asked_at=earlier, tainted=True)
    index.record_many([first, later])
    [projects, conversations, edits] = summaries(index)
    assert [row[1:3] for row in projects] == [(2, 1)]  # two turns, one conversation
    assert [row[2:5] for row in conversations] == [(2, 1, 2)]  # the earlier turn comes first
    assert [row[2:] for row in edits] == [("a.py", 2)]
    index.close()


def test_a_bulk_write_reads_its_new_rows_not_every_turn(tmp_path: Path) -> None:
    # Grouped straight from `turns`, SQLite walked a whole index of it for every batch: an
    # import's cost grew with the index (1M turns: a third slower).
    index = HistoryIndex.open(tmp_path / "history.db")
    with engine_of(index).connect() as conn:
        for statement in summaries_sql.bulk_added_statements():
            plan = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", {"before": 0})
            reads = [row[3] for row in plan if " turns " in f"{row[3]} "]
            assert reads == ["SEARCH turns USING INTEGER PRIMARY KEY (rowid>?)"], reads
    index.close()

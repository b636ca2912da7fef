"""Upkeep on PostgreSQL: what an import leaves in GIN's pending list is merged by upkeep."""

from __future__ import annotations

from datetime import UTC, datetime

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.postgres import project_index, upkeep
from tests.helpers.engines import engine_of


def imported(n: int) -> ImportedTurn:
    return ImportedTurn(
        turn_id=f"t{n}", session_id=f"s{n // 30}", project="/p", asked=f"question {n} login",
        answered="an answer " * 20, files=("a.py",), edited=(), tools=(), tainted=False,
        asked_at=datetime.now(UTC),
    )  # fmt: skip


def test_upkeep_merges_what_an_import_left_pending(postgres_url: str) -> None:
    index = HistoryIndex.open(postgres_url)
    assert index.record_many([imported(n) for n in range(1_500)]).new == 1_500
    assert upkeep.merge_pending(engine_of(index))  # the import left entries pending
    assert not upkeep.merge_pending(engine_of(index))  # and they are merged now
    with engine_of(index).connect() as conn:  # the project index's too (project_index.py)
        left = (  # each partition's (revision 0019)
            "SELECT sum(gin_clean_pending_list(inhrelid)) FROM pg_inherits"
            f" WHERE inhparent = CAST('{project_index.INDEX}' AS regclass)"
        )
        assert conn.exec_driver_sql(left).scalar_one() == 0
    assert len(index.search("login", k=10)) == 10
    index.record_many([imported(n) for n in range(1_500, 1_600)])
    assert index.tidy()
    assert not upkeep.merge_pending(engine_of(index))
    index.close()

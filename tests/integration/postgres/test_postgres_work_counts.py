"""PostgreSQL counts a word's turns outside their work, as SQLite does (history/store/postgres/
statistics.py): a word in many turns' work and one turn's question keeps its weight there, and
that turn ranks first for it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from history import HistoryIndex
from history.importers.base import ImportedTurn
from tests.helpers.engines import engine_of


def test_postgres_work_text_does_not_lower_a_words_weight_in_asked(fresh_postgres_url: str) -> None:
    index = HistoryIndex.open(fresh_postgres_url)
    now = datetime.now(UTC)

    def turn(n: int, asked: str, work: str) -> ImportedTurn:
        return ImportedTurn(
            turn_id=f"t{n}",
            session_id="s",
            project="/p",
            asked=asked,
            answered="done",
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(hours=n),
            work=work,
        )

    turns = [turn(0, "the flaky test of the parser", "")]
    turns += [
        turn(n, "parser parser rewrite" if n < 4 else f"refactor module {n}", "$ pytest -k test_x")
        for n in range(1, 41)
    ]
    assert index.record_many(turns).new == 41
    repository: Any = index._repository
    with engine_of(index).connect() as conn:
        rows, counts = repository._search.counts.rows_and_counts(conn, ["test", "parser", "pytest"])
    hits = index.search("flaky test parser", k=3)
    index.close()
    assert rows == 41
    assert counts == {"test": 1, "parser": 4, "pytest": 0}
    assert hits[0].turn_id == "t0"

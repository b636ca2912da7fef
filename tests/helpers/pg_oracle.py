"""PostgreSQL's exhaustive ranking, which its fast search must equal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text

from history import HistoryIndex
from history.ranking import idf
from history.store.postgres import schema, search
from history.store.postgres.repository import PostgresTurnRepository
from tests.helpers.engines import engine_of


def exhaustive(index: HistoryIndex, words: Sequence[str], project: str | None) -> list[str]:
    repository = index._repository
    assert isinstance(repository, PostgresTurnRepository) and engine_of(index) is not None
    with engine_of(index).connect() as conn:
        rows, frequency = repository._search.counts.rows_and_counts(conn, words)
        params: dict[str, Any] = {f"w{n}": word for n, word in enumerate(words)}
        params |= {f"i{n}": idf(rows, frequency[word]) for n, word in enumerate(words)}
        where = f"{schema.VECTOR_COLUMN} @@ ({search.any_of(range(len(words)))})"
        if project is not None:
            where += " AND project = :project"
            params["project"] = project
        sql = (
            f"SELECT turn_id FROM turns WHERE {where} ORDER BY "
            f"{search.score_expression(len(words))} DESC, asked_at DESC LIMIT 5"
        )
        return [str(turn_id) for (turn_id,) in conn.execute(text(sql), params)]

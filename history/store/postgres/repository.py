"""The turn store on PostgreSQL: the same contract as SQLite's, the database computing the
full-text index (schema.py) and ranking with ts_rank (search.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.dialects.postgresql import insert

from history.domain import SearchResults
from history.store import rows
from history.store.postgres import bulk, project_words, scrub
from history.store.postgres.search import TsvectorSearch
from history.store.sql_repository import SqlTurnRepository


class PostgresTurnRepository(SqlTurnRepository):
    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, engine, insert)
        self._search = TsvectorSearch(engine)
        self._scrub = scrub.Scrub(engine)

    def _upsert_rows(self, conn: Connection, values: list[dict[str, Any]]) -> None:
        bulk.upsert_rows(conn, values)

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        if not terms:
            return SearchResults()
        return rows.hits(self._search.search(terms, project, since, k))

    def _forget(
        self, conn: Connection, session_ids: Sequence[str], project: str | None = None
    ) -> int:
        """Rows and tombstones in one transaction; the scrub is owed from its commit on."""
        removed = super()._forget(conn, session_ids, project)
        if removed:
            project_words.forget_gone_projects(conn)
            self._scrub.owed(conn)
        return removed

    def _expire(self, conn: Connection, project: str | None, before: datetime) -> int:
        removed = super()._expire(conn, project, before)
        if removed:
            project_words.forget_gone_projects(conn)
            self._scrub.owed(conn)
        return removed

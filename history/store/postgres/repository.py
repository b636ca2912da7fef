"""The turn store on PostgreSQL: the same contract as SQLite's, the database computing the
full-text index (schema.py) and ranking with ts_rank (search.py)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import OperationalError

from history.domain import NewTurn, SearchResults, Turn, UpsertCounts
from history.store import rows
from history.store.postgres import bulk, project_words, scrub
from history.store.postgres.search import TsvectorSearch
from history.store.sql_repository import SqlTurnRepository

log = logging.getLogger(__name__)

# A live turn waits up to this many lock timeouts (engine.LOCK_TIMEOUT_MS each) for a partition
# being rewritten; one rewrite takes a few seconds.
RECORD_TRIES = 3
_LOCK_NOT_AVAILABLE = "55P03"
_PROJECT_OF = text("SELECT project FROM turn_ids WHERE turn_id = :turn_id")


def _lock_waited_out(exc: OperationalError) -> bool:
    return getattr(exc.orig, "sqlstate", None) == _LOCK_NOT_AVAILABLE


class PostgresTurnRepository(SqlTurnRepository):
    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, engine, insert)
        self._search = TsvectorSearch(engine)
        self._scrub = scrub.Scrub(engine)

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        with self._writer.begin() as conn:
            return rows.upsert_changed(conn, turns, self._upsert_rows, by_project=True)

    def record(self, turn: NewTurn) -> UpsertCounts | None:
        """Store one live turn. A forget's scrub holds the partition of the turn's project for
        the seconds its rewrite takes (scrub.py): a wait past the lock timeout is tried again,
        up to RECORD_TRIES times, before the turn is given up (and logged)."""
        for _ in range(RECORD_TRIES - 1):
            try:
                return self.upsert_many([turn])
            except OperationalError as exc:
                if not _lock_waited_out(exc):
                    raise
                log.info("turn waited for a partition being rewritten: trying again")
        return self.upsert_many([turn])

    def turn(self, turn_id: str) -> Turn | None:
        """The stored turn, read from its project's partition only (`turn_ids` holds it)."""
        with self.engine.connect() as conn:
            project = conn.execute(_PROJECT_OF, {"turn_id": turn_id}).scalar()
        if project is None:
            return None
        return self._views.turn(turn_id, project)

    def upsert(self, turn: NewTurn) -> None:
        with self._writer.begin() as conn:
            bulk.upsert_rows(conn, [rows.row_values(turn)])

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

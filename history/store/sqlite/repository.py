"""The turn store on SQLite: FTS5 search where compiled in, the same questions by LIKE elsewhere."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.dialects.sqlite import insert

from history.domain import SearchResults
from history.store import rows
from history.store.models import Turn
from history.store.rows import chunks as _chunks
from history.store.rows import scope as _scope
from history.store.sql_repository import SqlTurnRepository
from history.store.sqlite import fts
from history.store.sqlite.engine import writer
from history.store.sqlite.fts_search import FtsSearch
from history.store.sqlite.like_search import search_like

# A forget of more turns than this (or than one in BULK_FORGET_SHARE of the index) rewrites the
# full-text index instead of scrubbing row by row.
BULK_FORGET_TURNS = 100
BULK_FORGET_SHARE = 500


class SqliteTurnRepository(SqlTurnRepository):
    def __init__(self, engine: Engine, full_text: bool, secure_delete: bool = False) -> None:
        super().__init__(engine, writer(engine), insert)
        self.full_text = full_text
        self.secure_delete = secure_delete
        self._fts = FtsSearch(engine)

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        if not terms:
            return SearchResults()
        if self.full_text:
            return self._search_fts(terms, project, since, k)
        return self._search_like(terms, project, since, k)

    def _search_fts(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        return rows.hits(self._fts.search(terms, project, since, k))

    def _search_like(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        found = search_like(self.engine, terms, _scope(project, since), k)
        return rows.hits(rows.Ranked(found))

    def _forget(
        self, conn: Connection, session_ids: Sequence[str], project: str | None = None
    ) -> int:
        """Delete the sessions' turns (of `project` only, when given) and leave tombstones.

        FTS5's secure-delete scrubs each deleted row from the index at once, at a few ms a row;
        rewriting the whole index costs about 8 µs a stored row (bench/RESULTS.md). A large
        forget takes the rewrite instead, in the same transaction."""
        doomed = sum(
            conn.execute(
                select(func.count())
                .select_from(Turn)
                .where(Turn.session_id.in_(chunk), *_scope(project, None))
            ).scalar_one()
            for chunk in _chunks(session_ids)
        )
        stored = conn.execute(select(func.count()).select_from(Turn)).scalar_one()
        rewrite = self.secure_delete and doomed > max(
            BULK_FORGET_TURNS, stored // BULK_FORGET_SHARE
        )
        if rewrite:
            conn.exec_driver_sql(fts.secure_delete_statement(on=False))
        removed = super()._forget(conn, session_ids, project)
        if rewrite:
            conn.exec_driver_sql(fts.optimize_statement())
            conn.exec_driver_sql(fts.secure_delete_statement(on=True))
        return removed

    def purge(self) -> bool:
        # secure_delete (a PRAGMA set on connect) zeroes freed pages of `turns`. FTS5 keeps a
        # deleted row's terms in its old segments unless its own secure-delete option is on;
        # without it, only a full merge rewrites them away.
        if self.full_text and not self.secure_delete:
            with self._writer.begin() as conn:
                conn.exec_driver_sql(fts.optimize_statement())
        # The WAL still holds the deleted pages as they were: copy it back and cut it to zero.
        # This waits (busy timeout) for readers of an older snapshot, then gives up.
        return self._checkpoint("TRUNCATE")

    def merge(self, pages: int) -> bool:
        if not self.full_text:
            return False
        with self._writer.begin() as conn:
            before = conn.exec_driver_sql("SELECT total_changes()").scalar_one()
            conn.exec_driver_sql(fts.merge_statement(pages))
            changes = conn.exec_driver_sql("SELECT total_changes()").scalar_one() - before
        return bool(changes >= 2)  # FTS5's documented sign that the merge did some work

    def checkpoint(self) -> None:
        self._checkpoint("PASSIVE")

    def _checkpoint(self, mode: str) -> bool:
        """Copy the WAL back into the database; False when a reader held some of it back."""
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            busy, _, _ = cursor.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
            cursor.close()
        finally:
            raw.close()
        return bool(busy == 0)

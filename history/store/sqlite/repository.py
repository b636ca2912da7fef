"""The turn store on SQLite: FTS5 search where compiled in, the same questions by LIKE elsewhere."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Engine, text
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.exc import DBAPIError, OperationalError

from history.domain import NewTurn, SearchResults, UpsertCounts
from history.store import owed, rows
from history.store.rows import scope as _scope
from history.store.sql_repository import SqlTurnRepository
from history.store.sqlite import summaries
from history.store.sqlite.engine import lock_waited_out, no_autocheckpoint, writer
from history.store.sqlite.forgetting.forget import Forgetting
from history.store.sqlite.forgetting.spool import SPOOL_AFTER_MS
from history.store.sqlite.fts_search import FtsSearch
from history.store.sqlite.like_search import search_like

# While a large forget is under way, search ranks this many more turns than asked for and drops
# those of the conversations being deleted.
HIDDEN_MARGIN = 40


class SqliteTurnRepository(SqlTurnRepository):
    def __init__(self, engine: Engine, full_text: bool, secure_delete: bool = False) -> None:
        super().__init__(engine, writer(engine), insert, full_text)
        self.secure_delete = secure_delete
        self._fts = FtsSearch(engine)
        self.forgetting = Forgetting(engine, full_text, secure_delete, self._write_moved)
        self.spool = self.forgetting.spool

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        if not terms:
            return SearchResults()
        hidden = self._hidden()
        wanted = k + HIDDEN_MARGIN if hidden else k
        if self.full_text:
            found = rows.hits(self._fts.search(terms, project, since, wanted))
        else:
            found = rows.hits(
                rows.Ranked(search_like(self.engine, terms, _scope(project, since), wanted))
            )
        if not hidden:
            return found
        kept = [hit for hit in found if not owed.hidden(hidden, hit.session_id, hit.project)]
        return found.like(kept[:k])

    def _hidden(self) -> set[tuple[str, str | None]]:
        try:
            with self.engine.connect() as conn:
                return owed.work(conn)
        except DBAPIError:  # a file opened read-only before migration 0008: no forget under way
            return set()

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        """The batch's rows in one statement, then its new rows counted into the summaries set
        by set (summaries.bulk_added_statements), the insert trigger aside meanwhile."""
        with self._writer.begin() as conn:
            # Every SQLite engine registers the flag (engine.create_sqlite_engine).
            bulk: summaries.BulkFlag = conn.connection.info[summaries.IN_BULK_FUNCTION]
            before = conn.exec_driver_sql(summaries.LAST_ID).scalar_one()
            bulk.on = True
            try:
                counts = rows.upsert_changed(conn, turns, self._upsert_rows)
            finally:
                bulk.on = False
            if counts.new:
                for statement in summaries.bulk_added_statements():
                    conn.execute(text(statement), {"before": before})
            return counts

    def record(self, turn: NewTurn) -> UpsertCounts | None:
        """Store one live turn; None when it was spooled (spool.py): a forget held the write lock
        past SPOOL_AFTER_MS. Without a forget owed, it waits for the lock as long as ever."""
        if self.spool.path is None:
            return self.upsert_many([turn])
        try:
            return self._upsert_one(
                turn, self._writer.execution_options(lock_wait_ms=SPOOL_AFTER_MS)
            )
        except OperationalError as exc:
            if not lock_waited_out(exc):
                raise
        try:
            if self.forgetting.spool_turn(turn):
                return None
        except (OSError, DBAPIError):
            pass  # no spool here (a full disk, a read-only folder): the lock is waited for
        return self.upsert_many([turn])

    def _upsert_one(self, turn: NewTurn, through: Engine) -> UpsertCounts:
        with through.begin() as conn:
            if owed.scrub_owed(conn):
                # A forget's steps fill the WAL faster than its checkpoints between them empty
                # it: a record's commit would otherwise copy 40 MB back at 1M turns.
                no_autocheckpoint(conn)
            return rows.upsert_changed(conn, [turn], self._upsert_rows)

    def close(self) -> None:
        self.forgetting.close()

    def _write_moved(self, conn: Connection, turns: list[NewTurn]) -> None:
        rows.upsert_changed(conn, turns, self._upsert_rows)

    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        return self.forgetting.forget(list(session_ids), None)

    def delete_project(self, project: str) -> int:
        return self.forgetting.forget(None, project)

    def _expire(self, conn: Connection, project: str | None, before: datetime) -> int:
        return self.forgetting.expire(conn, project, before)

    def _finish_deleting(self) -> None:
        self.forgetting.finish_deleting()

    def unforget(self, session_ids: Sequence[str]) -> None:
        """An import brings the sessions back: a forget still deleting them stops."""
        with self._writer.begin() as conn:
            rows.unforget(conn, session_ids)
            owed.drop_work(conn, session_ids)

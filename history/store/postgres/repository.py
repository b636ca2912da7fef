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
from history.store.postgres import bulk, project_words, rewriting, scrub, waiting
from history.store.postgres.search import TsvectorSearch
from history.store.sql_repository import SqlTurnRepository

log = logging.getLogger(__name__)

# A search waits up to this many lock timeouts (engine.LOCK_TIMEOUT_MS each) for a partition
# being rewritten: at a million turns the largest project's takes tens of seconds.
SEARCH_TRIES = 24
# A record moving the turns it left waiting does not wait for their partition.
MOVE_WAIT_MS = 50
# A forget's delete runs the summary triggers, whose cached plans name every partition: one being
# rewritten by another process's scrub (tens of seconds at a million turns) holds it up. It waits
# for that rewrite rather than failing after the engine's 5 s.
FORGET_LOCK_TIMEOUT = text("SET LOCAL lock_timeout = '5min'")
_PROJECT_OF = text("SELECT project FROM turn_ids WHERE turn_id = :turn_id")
_ANY_WAITING = text("SELECT EXISTS (SELECT FROM turns_waiting)")


class PostgresTurnRepository(SqlTurnRepository):
    """`searches`: the pool the full-text searches run in, apart from every other read and
    write (an engine of its own on the same database). An every-project search runs the plans
    its connection cached for an earlier one (search.py); any other read ending with a ROLLBACK
    on that connection (asking whether a project is stored before a one-project search, a view,
    a list) would have psycopg deallocate them all, and the next search plan its statements over
    64 partitions again. The record path must not keep prepared statements either (a cached
    generic plan locks every partition, one a forget is rewriting too): it stays in `engine`."""

    def __init__(self, engine: Engine, searches: Engine) -> None:
        super().__init__(engine, engine, insert)
        self._search = TsvectorSearch(searches)
        self._scrub = scrub.Scrub(engine)
        self._made_wait = False  # this process left a turn in turns_waiting

    def close(self) -> None:
        self._search.engine.dispose()

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        with self._writer.begin() as conn:
            return rows.upsert_changed(conn, turns, self._upsert_rows, by_project=True)

    def record(self, turn: NewTurn) -> UpsertCounts | None:
        """Store one live turn; None when it waits in `turns_waiting` (waiting.py): a forget's
        scrub held the partition of its project past waiting.WAIT_MS."""
        if self._made_wait:  # move them in if their partition is free (else a later call will)
            waiting.move(self._writer, wait_ms=MOVE_WAIT_MS)
            self._made_wait = self._waits()
        try:
            with self._writer.begin() as conn:
                waiting.wait_briefly(conn)
                return rows.upsert_changed(conn, [turn], self._upsert_rows, by_project=True)
        except OperationalError as exc:
            if not waiting.lock_waited_out(exc):
                raise
        with self._writer.begin() as conn:
            waiting.add(conn, rows.row_values(turn))
        self._made_wait = True
        return None

    def _waits(self) -> bool:
        with self.engine.connect() as conn:
            return bool(conn.execute(_ANY_WAITING).scalar_one())

    def turn(self, turn_id: str) -> Turn | None:
        """The stored turn, read from its project's partition only (`turn_ids` holds it). None
        when a forget's scrub holds that partition past waiting.WAIT_MS (a record then takes
        the turn as new: its time is the record's)."""
        with self.engine.connect() as conn:
            project = conn.execute(_PROJECT_OF, {"turn_id": turn_id}).scalar()
        if project is None:
            return None
        try:
            return self._views.turn(turn_id, project, lock_timeout_ms=waiting.WAIT_MS)
        except OperationalError as exc:
            if not waiting.lock_waited_out(exc):
                raise
            return None

    def upsert(self, turn: NewTurn) -> None:
        with self._writer.begin() as conn:
            bulk.upsert_rows(conn, [rows.row_values(turn)])

    def _upsert_rows(self, conn: Connection, values: list[dict[str, Any]]) -> None:
        bulk.upsert_rows(conn, values)

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        """A partition being rewritten by a forget's scrub (seconds; at 1M, tens) holds up a
        search that reads it: after one lock timeout the search leaves it out and says its
        answer is partial (rewriting.py). A search of one project reads its own partition only,
        so it is held up only by that one's rewrite, and then finds nothing, partially."""
        if not terms:
            return SearchResults()
        skipping: Sequence[str] = ()
        for _ in range(SEARCH_TRIES - 1):
            try:
                return rows.hits(self._search.search(terms, project, since, k, skipping))
            except OperationalError as exc:
                if not waiting.lock_waited_out(exc):
                    raise
            with self._search.engine.connect() as conn:
                skipping = rewriting.held(conn)
        return rows.hits(self._search.search(terms, project, since, k, skipping))

    def _forget(
        self, conn: Connection, session_ids: Sequence[str], project: str | None = None
    ) -> int:
        """Rows and tombstones in one transaction; the scrub is owed from its commit on."""
        conn.execute(FORGET_LOCK_TIMEOUT)
        removed = super()._forget(conn, session_ids, project)
        if removed + waiting.forget(conn, session_ids, project):
            project_words.forget_gone_projects(conn)
            self._scrub.owed(conn)
        return removed

    def _expire(self, conn: Connection, project: str | None, before: datetime) -> int:
        conn.execute(FORGET_LOCK_TIMEOUT)
        removed = super()._expire(conn, project, before)
        if removed + waiting.expire(conn, project, before):
            project_words.forget_gone_projects(conn)
            self._scrub.owed(conn)
        return removed

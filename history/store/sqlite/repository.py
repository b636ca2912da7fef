"""The turn store on SQLite: FTS5 search where compiled in, the same questions by LIKE elsewhere."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Engine, delete, func, select, text
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.exc import DBAPIError, OperationalError

from history import domain
from history.domain import NewTurn, SearchResults, UpsertCounts
from history.paging import PageKey
from history.store import owed, rows
from history.store import retention as stored_retention
from history.store.models import Conversation, Turn
from history.store.owed import ScrubState
from history.store.rows import chunks as _chunks
from history.store.rows import scope as _scope
from history.store.sql_repository import SqlTurnRepository
from history.store.sqlite import best_turns, fts, rank_extension, summaries
from history.store.sqlite.engine import (
    lock_waited_out,
    no_autocheckpoint,
    sqlite_path,
    writer,
)
from history.store.sqlite.forgetting import blanking
from history.store.sqlite.forgetting.spool import SPOOL_AFTER_MS, Spool
from history.store.sqlite.forgetting.steps import SqliteScrub
from history.store.sqlite.forgetting.writers import WaitingWriters
from history.store.sqlite.fts_search import FtsSearch
from history.store.sqlite.like_search import search_like

# A forget of more turns than this deletes them in batches (forgetting.py); fewer go in one
# transaction, FTS5's secure-delete scrubbing each row (a few ms a row).
BULK_FORGET_TURNS = 100
# While a large forget is under way, search ranks this many more turns than asked for and drops
# those of the conversations being deleted.
HIDDEN_MARGIN = 40
# The final checkpoint waits this long for the lock or for readers, not the busy timeout: a
# record queued behind it would wait as long. A forget's own scrub tries this many times, a
# pause apart (another writer's step, not a reader, may be in the way).
CHECKPOINT_WAIT_MS = 20
CHECKPOINT_TRIES, CHECKPOINT_PAUSE = 5, 0.05


class SqliteTurnRepository(SqlTurnRepository):
    def __init__(self, engine: Engine, full_text: bool, secure_delete: bool = False) -> None:
        super().__init__(engine, writer(engine), insert)
        self.full_text = full_text
        self.secure_delete = secure_delete
        self._fts = FtsSearch(engine)
        self._best_turns = best_turns.Keeper()
        database = sqlite_path(engine.url.render_as_string(hide_password=False))
        self.spool = Spool(database, self._write_moved)
        self._scrub = SqliteScrub(
            writer(engine, announced=False, autocheckpoint=False),
            full_text,
            secure_delete,
            WaitingWriters(database),
            self.spool,
        )

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
        return SearchResults(kept[:k], found.approximate)

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
            if self.spool.add(turn, self._forget_owed):
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

    def _forget_owed(self) -> bool:
        with self.engine.connect() as conn:
            return owed.scrub_owed(conn)

    def close(self) -> None:
        self.spool.close()

    def _write_moved(self, conn: Connection, turns: list[NewTurn]) -> None:
        rows.upsert_changed(conn, turns, self._upsert_rows)

    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        return self._forget_sessions(list(session_ids), None)

    def delete_project(self, project: str) -> int:
        return self._forget_sessions(None, project)

    def _forget_sessions(self, session_ids: list[str] | None, project: str | None) -> int:
        """Tombstone the sessions (a project's: every one holding a turn of it) and delete their
        turns (of `project` only, when given): at once when they are few, else in batches
        (forgetting.py) after listing them as work owed. The number of turns forgotten.
        The turns spooled before it move in first and are forgotten with the rest."""
        with self.spool.moving(scrub=True) as move, self._writer.begin() as conn:
            move(conn)
            # The conversations' summary rows (kept by triggers) count their turns: the
            # transaction that makes a large forget visible reads a row per conversation.
            if session_ids is None:
                found = select(Conversation.session_id, Conversation.turns).where(
                    Conversation.project == project
                )
                counted = list(conn.execute(found))
                session_ids = [session for session, _ in counted]
                doomed = sum(turns for _, turns in counted)
            else:
                doomed = _count(conn, session_ids, project)
            # Without FTS5's secure-delete, any forget leaves its words in the index's segments.
            rewrite = self.full_text and not self.secure_delete
            if doomed <= BULK_FORGET_TURNS:
                removed = rows.delete_sessions(conn, session_ids, self._tombstone, project)
                if removed:
                    owed.owe_scrub(conn, insert, rewrite_index=rewrite)
                return removed
            rows.tombstone_sessions(conn, session_ids, self._tombstone)
            owed.add_work(conn, [(session, project) for session in session_ids])
            owed.owe_scrub(conn, insert, rewrite_index=self.full_text)
        while self._scrub.delete_step():
            self._between_steps()
        return doomed

    def _expire(self, conn: Connection, project: str | None, before: datetime) -> int:
        """A few turns go at once, FTS5's secure-delete scrubbing each; more are listed as work
        owed, conversation by conversation, and deleted in batches (forgetting.py). Search
        leaves them out from the cutoff's commit on."""
        doomed = stored_retention.turns_before(conn, project, before)
        if not doomed:
            return 0
        if doomed <= BULK_FORGET_TURNS:
            scope = [Turn.asked_at < before, *_scope(project, None)]
            ids = list(conn.execute(select(Turn.id).where(*scope)).scalars())
            blanking.empty(conn, ids)  # before any goes: see blanking.py
            removed = int(conn.execute(delete(Turn).where(*scope)).rowcount)
            rewrite = self.full_text and not self.secure_delete
            owed.owe_scrub(conn, insert, rewrite_index=rewrite)
            return removed
        owed.add_expiry(conn, stored_retention.conversations_before(conn, project, before), before)
        owed.owe_scrub(conn, insert, rewrite_index=self.full_text)
        return doomed

    def _finish_deleting(self) -> None:
        while self._scrub.delete_step():
            self._between_steps()

    def unforget(self, session_ids: Sequence[str]) -> None:
        """An import brings the sessions back: a forget still deleting them stops."""
        with self._writer.begin() as conn:
            rows.unforget(conn, session_ids)
            owed.drop_work(conn, session_ids)

    def owes(self) -> bool:
        """A forget's work is owed, or turns wait in the spool (whose forget has settled: a
        process that died between the spool's commit and its move)."""
        return self._forget_owed() or self.spool.count() > 0

    def scrub(self, seconds: float | None) -> ScrubState:
        deadline = None if seconds is None else time.monotonic() + seconds
        tries = 1 if seconds is not None else CHECKPOINT_TRIES
        self._scrub.move_spooled()
        while True:
            state = self._scrub.step(self._final_checkpoint)
            if state == "blocked" and tries > 1:
                tries -= 1
                time.sleep(CHECKPOINT_PAUSE)
                continue
            if state != "more" or (deadline is not None and time.monotonic() >= deadline):
                return state
            self._between_steps()

    def _between_steps(self) -> None:
        self._scrub.between_steps(self.checkpoint)

    def purge(self) -> bool:
        return self.scrub(None) == "done"

    def merge(self, pages: int) -> bool:
        if not self.full_text:
            return False
        with self._writer.begin() as conn:
            before = conn.exec_driver_sql("SELECT total_changes()").scalar_one()
            conn.exec_driver_sql(fts.merge_statement(pages))
            changes = conn.exec_driver_sql("SELECT total_changes()").scalar_one() - before
            if changes >= 2:  # FTS5's documented sign that the merge did some work
                return True
            # Merged: then the common words' lists, one a step (best_turns.py), where
            # recall_best_turns is there to build them.
            if not conn.connection.info.get(rank_extension.FUNCTION):
                return False
            return self._best_turns.step(conn)

    def checkpoint(self) -> None:
        self._checkpoint("PASSIVE")

    def _final_checkpoint(self) -> bool:
        """Cut the WAL to zero; first copy what readers allow without blocking writers, so the
        truncating checkpoint, which blocks them, has little left to copy."""
        self._checkpoint("PASSIVE")
        return self._checkpoint("TRUNCATE", wait=False)

    def _checkpoint(self, mode: str, wait: bool = True) -> bool:
        """Copy the WAL back into the database; False when a reader held some of it back.
        Without `wait`, a reader or writer in the way fails it after CHECKPOINT_WAIT_MS instead
        of the busy timeout."""
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            if not wait:
                timeout = cursor.execute("PRAGMA busy_timeout").fetchone()[0]
                cursor.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
            try:
                busy, _, _ = cursor.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
            finally:
                if not wait:
                    cursor.execute(f"PRAGMA busy_timeout = {int(timeout)}")
            cursor.close()
        finally:
            raw.close()
        return bool(busy == 0)

    # Reading: the conversations a forget under way is still deleting are hidden already.

    def turn(self, turn_id: str) -> domain.Turn | None:
        found = super().turn(turn_id)
        if found is not None and owed.hidden(self._hidden(), found.session_id, found.project):
            return None
        return found

    def turn_ids_by_prefix(self, prefix: str, limit: int) -> list[str]:
        hidden = self._hidden()
        found = self._views.turns_by_prefix(prefix, limit + HIDDEN_MARGIN if hidden else limit)
        kept = [turn_id for turn_id, s, p in found if not owed.hidden(hidden, s, p)]
        return kept[:limit]

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[domain.Turn]:
        turns = super().conversation(session_id, around, radius)
        hidden = self._hidden() if turns else set()
        return [turn for turn in turns if not owed.hidden(hidden, turn.session_id, turn.project)]

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[domain.ConversationSummary]:
        found = super().conversations(project, since, limit, before)
        hidden = self._hidden()
        return [c for c in found if not owed.hidden(hidden, c.session_id, c.project)]

    def projects(self) -> list[domain.ProjectSummary]:
        found = super().projects()
        hidden = {project for _, project in self._hidden() if project is not None}
        return [p for p in found if p.project not in hidden]


def _count(conn: Connection, session_ids: Sequence[str], project: str | None) -> int:
    scope = [Conversation.project == project] if project is not None else []
    return sum(
        conn.execute(
            select(func.coalesce(func.sum(Conversation.turns), 0)).where(
                Conversation.session_id.in_(chunk), *scope
            )
        ).scalar_one()
        for chunk in _chunks(session_ids)
    )

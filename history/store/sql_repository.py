"""What both SQL stores do alike: upserts, counts, session lists, forgetting with tombstones,
and the views (views.py).

A backend gives its engine, the engine its writes go through (SQLite's begins IMMEDIATE), and its
dialect's `insert` (both dialects spell ON CONFLICT the same way); it adds search and the care of
its own storage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, select

from history import domain
from history.domain import NewTurn, UpsertCounts
from history.paging import PageKey
from history.retention import RetentionPolicy
from history.store import file_turns, rows
from history.store import retention as stored_retention
from history.store.models import TURN_COLUMNS, ForgottenSession, Project, Turn
from history.store.repository import Candidate, TurnRepository
from history.store.views import SqlViews


class SqlTurnRepository(TurnRepository):
    def __init__(
        self,
        engine: Engine,
        writer: Engine,
        insert: Callable[[Any], Any],
        full_text: bool = True,
    ) -> None:
        self.engine = engine
        self.full_text = full_text
        self._writer = writer
        # An upsert, never INSERT OR REPLACE: on SQLite, REPLACE deletes without firing the
        # delete trigger and would leave the old row's words in the index.
        statement = insert(Turn)
        updated = [column.key for column in TURN_COLUMNS if column.key != "turn_id"]
        self._upsert = statement.on_conflict_do_update(
            index_elements=[Turn.turn_id], set_={key: statement.excluded[key] for key in updated}
        )
        self._insert = insert
        self._views = SqlViews(engine)

    def upsert(self, turn: NewTurn) -> None:
        with self._writer.begin() as conn:
            conn.execute(self._upsert, rows.row_values(turn))

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        with self._writer.begin() as conn:
            return rows.upsert_changed(conn, turns, self._upsert_rows)

    def _upsert_rows(self, conn: Connection, values: list[dict[str, Any]]) -> None:
        conn.execute(self._upsert, values)

    def count(self, project: str | None) -> int:
        """The turns search can find: not past their retention, not being forgotten."""
        with self.engine.connect() as conn:
            shown = stored_retention.shown_conditions(conn)
            statement = select(func.count()).select_from(Turn).where(*rows.scope(project, None))
            return int(conn.execute(statement.where(*shown)).scalar_one())

    def session_ids(self, project: str | None) -> list[str]:
        statement = select(Turn.session_id).where(*rows.scope(project, None)).distinct()
        with self.engine.connect() as conn:
            return sorted(conn.execute(statement).scalars())

    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        with self._writer.begin() as conn:
            return self._forget(conn, session_ids)

    def delete_project(self, project: str) -> int:
        with self._writer.begin() as conn:
            sessions = select(Turn.session_id).where(Turn.project == project).distinct()
            return self._forget(conn, list(conn.execute(sessions).scalars()), project)

    def _forget(
        self, conn: Connection, session_ids: Sequence[str], project: str | None = None
    ) -> int:
        """Delete the sessions' turns (of `project` only, when given) and leave tombstones, in
        the caller's transaction."""
        return rows.delete_sessions(conn, session_ids, self._tombstone, project)

    def _tombstone(self) -> Any:
        return self._insert(ForgottenSession).on_conflict_do_nothing()

    # What every search reads first ends with a COMMIT, not the ROLLBACK that closes a
    # connection left in a transaction: on PostgreSQL psycopg deallocates every statement its
    # connection prepared on a ROLLBACK, and with them a search's cached plans
    # (postgres/search.py), so every search would plan its statements afresh (tens of ms over 64
    # partitions at 1M turns). On SQLite either ends the read alike.

    def retention(self) -> RetentionPolicy:
        with self.engine.connect() as conn:
            policy = stored_retention.load(conn)
            conn.commit()
            return policy

    def set_retention(self, project: str | None, days: int) -> None:
        with self._writer.begin() as conn:
            stored_retention.set_days(conn, self._insert, project, days)

    def unset_retention(self, project: str | None) -> bool:
        with self._writer.begin() as conn:
            return stored_retention.unset_days(conn, project)

    def expire(self, project: str | None, before: datetime, at_once: bool = True) -> int:
        with self._writer.begin() as conn:
            stored_retention.add_cutoff(conn, self._insert, project, before)
            removed = self._expire(conn, project, before)
        if at_once:
            self._finish_deleting()
        return removed

    def _expire(self, conn: Connection, project: str | None, before: datetime) -> int:
        """Delete the turns asked before `before`, in the caller's transaction."""
        doomed = delete(Turn).where(Turn.asked_at < before, *rows.scope(project, None))
        return int(conn.execute(doomed).rowcount)

    def _finish_deleting(self) -> None:
        """Delete what an expiry listed as owed (a store that deletes in batches)."""

    def _past_retention(self, now: datetime) -> list[tuple[str, datetime]]:
        """The projects (and their cutoffs) with a stored turn past retention, from their
        summary rows: a project's first turn is past its cutoff. None while an expiry listed
        as owed is still deleting."""
        with self.engine.connect() as conn:
            policy = stored_retention.load(conn)
            if not policy or stored_retention.expiring(conn):
                return []  # nothing to keep, or an expiry under way: its steps come first
            found = conn.execute(select(Project.project, Project.first_asked_at)).all()
        due = [(project, policy.cutoff(project, now)) for project, first in found]
        first_of = dict(found)
        return [(p, c) for p, c in due if c is not None and first_of[p] < c]

    def retention_due(self, now: datetime) -> bool:
        return bool(self._past_retention(now))

    def expire_due(self, now: datetime) -> int:
        return sum(self.expire(p, c, at_once=False) for p, c in self._past_retention(now))

    def forgotten(self, session_ids: Sequence[str]) -> set[str]:
        with self.engine.connect() as conn:
            return rows.forgotten(conn, session_ids)

    def unforget(self, session_ids: Sequence[str]) -> None:
        with self._writer.begin() as conn:
            rows.unforget(conn, session_ids)

    def turn(self, turn_id: str) -> domain.Turn | None:
        return self._views.turn(turn_id)

    def turn_ids_by_prefix(self, prefix: str, limit: int) -> list[str]:
        return self._views.turn_ids_by_prefix(prefix, limit)

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[domain.Turn]:
        return self._views.conversation(session_id, around, radius)

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[domain.ConversationSummary]:
        return self._views.conversations(project, since, limit, before)

    def projects(self) -> list[domain.ProjectSummary]:
        return self._views.projects()

    def holds_project(self, project: str) -> bool:
        with self.engine.connect() as conn:
            found = conn.execute(select(Project.project).where(Project.project == project))
            return found.first() is not None

    def holds_masked_projects(self) -> bool:
        masked = select(Project.project).where(Project.project.contains("redacted")).limit(1)
        with self.engine.connect() as conn:
            return conn.execute(masked).first() is not None

    def file_candidates(self, path: str, project: str | None) -> list[Candidate]:
        return file_turns.candidates(self.engine, self.full_text, path, project)

    def turns_by_row(
        self, ids: Sequence[int], project: str | None = None
    ) -> dict[int, domain.Turn]:
        return file_turns.turns_by_id(self.engine, ids, project)

    def vectors_stored(self) -> bool:
        # turn_vectors (revision 0021) has no model class of its own in the queries: plain SQL.
        with self.engine.connect() as conn:
            found = conn.exec_driver_sql("SELECT 1 FROM turn_vectors LIMIT 1").first()
            conn.commit()  # as retention's
            return found is not None

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

from sqlalchemy import Connection, Engine, func, select

from history import domain
from history.domain import NewTurn, UpsertCounts
from history.paging import PageKey
from history.store import rows
from history.store.models import TURN_COLUMNS, ForgottenSession, Turn
from history.store.repository import TurnRepository
from history.store.views import SqlViews


class SqlTurnRepository(TurnRepository):
    def __init__(self, engine: Engine, writer: Engine, insert: Callable[[Any], Any]) -> None:
        self.engine = engine
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
        statement = select(func.count()).select_from(Turn).where(*rows.scope(project, None))
        with self.engine.connect() as conn:
            return int(conn.execute(statement).scalar_one())

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

    def forgotten(self, session_ids: Sequence[str]) -> set[str]:
        with self.engine.connect() as conn:
            return rows.forgotten(conn, session_ids)

    def unforget(self, session_ids: Sequence[str]) -> None:
        with self._writer.begin() as conn:
            rows.unforget(conn, session_ids)

    def turn(self, turn_id: str) -> domain.Turn | None:
        return self._views.turn(turn_id)

    def turn_ids_by_prefix(self, prefix: str, limit: int) -> list[str]:
        return [turn_id for turn_id, _, _ in self._views.turns_by_prefix(prefix, limit)]

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[domain.Turn]:
        return self._views.conversation(session_id, around, radius)

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[domain.ConversationSummary]:
        return self._views.conversations(project, since, limit, before)

    def projects(self) -> list[domain.ProjectSummary]:
        return self._views.projects()

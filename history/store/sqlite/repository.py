"""The turn store on SQLite: FTS5 search where compiled in, the same questions by LIKE elsewhere."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    delete,
    func,
    select,
)
from sqlalchemy.dialects.sqlite import Insert, insert

from history import domain
from history.domain import Hit, NewTurn, UpsertCounts
from history.paging import PageKey
from history.store.models import TURN_COLUMNS, ForgottenSession, Turn
from history.store.repository import TurnRepository
from history.store.sqlite import fts
from history.store.sqlite.engine import writer
from history.store.sqlite.fts_search import FtsSearch
from history.store.sqlite.like_search import search_like
from history.store.sqlite.views import SqliteViews, turn_fields


def _upsert_statement() -> Insert:
    # An upsert, never INSERT OR REPLACE: REPLACE deletes without firing turns_ad and would
    # leave the old row's terms in the index.
    statement = insert(Turn)
    updated = [column.key for column in TURN_COLUMNS if column.key != "turn_id"]
    return statement.on_conflict_do_update(
        index_elements=[Turn.turn_id], set_={key: statement.excluded[key] for key in updated}
    )


_UPSERT = _upsert_statement()
# A forget of more turns than this (or than one in BULK_FORGET_SHARE of the index) rewrites the
# full-text index instead of scrubbing row by row.
BULK_FORGET_TURNS = 100
BULK_FORGET_SHARE = 500


def _chunks(items: Sequence[str], size: int = 500) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _row_values(turn: NewTurn) -> dict[str, Any]:
    return {
        "turn_id": turn.turn_id,
        "session_id": turn.session_id,
        "project": turn.project,
        "asked_at": turn.asked_at,
        "tainted": turn.tainted,
        "asked": turn.asked,
        "answered": turn.answered,
        "files": json.dumps(list(turn.files), ensure_ascii=False),
        "edited": json.dumps(list(turn.edited), ensure_ascii=False),
        "tools": json.dumps(list(turn.tools), ensure_ascii=False),
    }


def _hit(row: Sequence[Any], score: float) -> Hit:
    return Hit(**turn_fields(row), score=score)


def _scope(project: str | None, since: datetime | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if project is not None:
        conditions.append(Turn.project == project)
    if since is not None:
        conditions.append(Turn.asked_at >= since)
    return conditions


class SqliteTurnRepository(TurnRepository):
    def __init__(self, engine: Engine, full_text: bool, secure_delete: bool = False) -> None:
        self.engine = engine
        self._writer = writer(engine)
        self.full_text = full_text
        self.secure_delete = secure_delete
        self._fts = FtsSearch(engine)
        self._views = SqliteViews(engine)

    def upsert(self, turn: NewTurn) -> None:
        with self._writer.begin() as conn:
            conn.execute(_UPSERT, _row_values(turn))

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        rows = {turn.turn_id: _row_values(turn) for turn in turns}  # the last of a duplicate wins
        with self._writer.begin() as conn:
            stored: dict[str, tuple[Any, ...]] = {}
            for chunk in _chunks(list(rows)):
                found = conn.execute(select(*TURN_COLUMNS).where(Turn.turn_id.in_(chunk)))
                stored.update({row[0]: tuple(row) for row in found})
            changed = [
                values
                for turn_id, values in rows.items()
                if stored.get(turn_id) != tuple(values[c.key] for c in TURN_COLUMNS)
            ]
            if changed:
                conn.execute(_UPSERT, changed)
        new = len(rows.keys() - stored.keys())
        return UpsertCounts(new=new, updated=len(changed) - new, unchanged=len(rows) - len(changed))

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> list[Hit]:
        if not terms:
            return []
        if self.full_text:
            return self._search_fts(terms, project, since, k)
        return self._search_like(terms, project, since, k)

    def _search_fts(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> list[Hit]:
        found = self._fts.search(terms, project, since, k)
        return [_hit(row, score) for row, score in found]

    def _search_like(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> list[Hit]:
        found = search_like(self.engine, terms, _scope(project, since), k)
        return [_hit(row, score) for row, score in found]

    def count(self, project: str | None) -> int:
        statement = select(func.count()).select_from(Turn).where(*_scope(project, None))
        with self.engine.connect() as conn:
            return int(conn.execute(statement).scalar_one())

    def session_ids(self, project: str | None) -> list[str]:
        statement = select(Turn.session_id).where(*_scope(project, None)).distinct()
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
        removed = _delete_sessions(conn, session_ids, project)
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

    def forgotten(self, session_ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        with self.engine.connect() as conn:
            for chunk in _chunks(session_ids):
                tombstones = select(ForgottenSession.session_id).where(
                    ForgottenSession.session_id.in_(chunk)
                )
                found.update(conn.execute(tombstones).scalars())
        return found

    def unforget(self, session_ids: Sequence[str]) -> None:
        with self._writer.begin() as conn:
            for chunk in _chunks(session_ids):
                conn.execute(delete(ForgottenSession).where(ForgottenSession.session_id.in_(chunk)))

    def turn(self, turn_id: str) -> domain.Turn | None:
        return self._views.turn(turn_id)

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[domain.Turn]:
        return self._views.conversation(session_id, around, radius)

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[domain.ConversationSummary]:
        return self._views.conversations(project, since, limit, before)

    def projects(self) -> list[domain.ProjectSummary]:
        return self._views.projects()


def _delete_sessions(
    conn: Connection, session_ids: Sequence[str], project: str | None = None
) -> int:
    """Delete the sessions' turns (of `project` only, when given) and leave tombstones."""
    removed = 0
    now = datetime.now(UTC)
    for chunk in _chunks(session_ids):
        doomed = delete(Turn).where(Turn.session_id.in_(chunk), *_scope(project, None))
        removed += conn.execute(doomed).rowcount
        tombstones = insert(ForgottenSession).on_conflict_do_nothing()
        conn.execute(tombstones, [{"session_id": s, "forgotten_at": now} for s in chunk])
    return removed

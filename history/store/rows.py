"""What every SQL backend does the same way: a turn as row values, a row as a `Hit`, the scope
of a query, and batching long lists of ids."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Connection, Executable, delete, select

from history.domain import (
    NewTurn,
    UpsertCounts,
)
from history.store.models import TURN_COLUMNS, ForgottenSession, Turn
from history.store.row_values import hit as hit
from history.store.row_values import hits as hits
from history.store.row_values import names_json as names_json
from history.store.row_values import row_values as row_values
from history.store.search_plan import Ranked as Ranked

T = TypeVar("T")


def chunks(items: Sequence[T], size: int = 500) -> Iterator[list[T]]:
    """`items` a few hundred at a time: as many as one statement may bind."""
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def scope(project: str | None, since: datetime | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if project is not None:
        conditions.append(Turn.project == project)
    if since is not None:
        conditions.append(Turn.asked_at >= since)
    return conditions


def upsert_changed(
    conn: Connection,
    turns: Sequence[NewTurn],
    write: Callable[[Connection, list[dict[str, Any]]], None],
    by_project: bool = False,
) -> UpsertCounts:
    """Write (`write(conn, rows)`, an upsert) the turns whose stored values differ (the last
    of a duplicate turn_id wins). `by_project`: look the turns up in their projects only (on
    PostgreSQL, the partitions they go to: a partition being rewritten holds up only the turns
    of its projects); a turn stored under another project counts as new."""
    rows = {turn.turn_id: row_values(turn) for turn in turns}
    stored: dict[str, tuple[Any, ...]] = {}
    for chunk in chunks(list(rows)):
        lookup = select(*TURN_COLUMNS).where(Turn.turn_id.in_(chunk))
        if by_project:
            lookup = lookup.where(Turn.project.in_({rows[t]["project"] for t in chunk}))
        found = conn.execute(lookup)
        stored.update({row[0]: tuple(row) for row in found})
    changed = [
        values
        for turn_id, values in rows.items()
        if stored.get(turn_id) != tuple(values[c.key] for c in TURN_COLUMNS)
    ]
    if changed:
        write(conn, changed)
    new = len(rows.keys() - stored.keys())
    return UpsertCounts(new=new, updated=len(changed) - new, unchanged=len(rows) - len(changed))


def delete_sessions(
    conn: Connection,
    session_ids: Sequence[str],
    tombstone: Callable[[], Executable],
    project: str | None = None,
) -> int:
    """Delete the sessions' turns (of `project` only, when given) and leave tombstones;
    `tombstone()` is the dialect's insert into forgotten_sessions that ignores duplicates."""
    removed = 0
    for chunk in chunks(session_ids):
        doomed = delete(Turn).where(Turn.session_id.in_(chunk), *scope(project, None))
        removed += conn.execute(doomed).rowcount
    tombstone_sessions(conn, session_ids, tombstone)
    return removed


def session_turn_ids(
    conn: Connection, session_ids: Sequence[str], project: str | None
) -> list[int]:
    """The row ids of the sessions' turns (of `project` only, when given)."""
    found: list[int] = []
    for chunk in chunks(session_ids):
        ids = select(Turn.id).where(Turn.session_id.in_(chunk), *scope(project, None))
        found += conn.execute(ids).scalars()
    return found


def tombstone_sessions(
    conn: Connection, session_ids: Sequence[str], tombstone: Callable[[], Executable]
) -> None:
    now = datetime.now(UTC)
    for chunk in chunks(session_ids):
        conn.execute(tombstone(), [{"session_id": s, "forgotten_at": now} for s in chunk])


def forgotten(conn: Connection, session_ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for chunk in chunks(session_ids):
        tombstones = select(ForgottenSession.session_id).where(
            ForgottenSession.session_id.in_(chunk)
        )
        found.update(conn.execute(tombstones).scalars())
    return found


def unforget(conn: Connection, session_ids: Sequence[str]) -> None:
    for chunk in chunks(session_ids):
        conn.execute(delete(ForgottenSession).where(ForgottenSession.session_id.in_(chunk)))

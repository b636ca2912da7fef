"""Live turns that meet their partition being rewritten wait in `turns_waiting` (revision 0019).

A forget's scrub rewrites each partition that held forgotten rows (scrub.py), holding it for the
seconds its copy takes: at a million turns, a partition of one large project takes tens of
seconds. A live `record` that cannot have its partition within WAIT_MS writes its turn, as it
would have been stored (redacted, capped, its ids masked), to `turns_waiting`, a plain table no
rewrite holds, and is done. Whoever comes next moves the waiting turns in: the scrub once it has
rewritten its partitions, upkeep, and the process that made a turn wait at its next record.
Search sees a waiting turn once it has moved. A forget deletes the waiting turns it covers with
the stored ones (`forget`, `expire`), and a turn waiting for a conversation forgotten meanwhile is
dropped, not moved. A deleted or moved row's bytes stay in the table's pages like any other dead
row's: the scrub rewrites `turns_waiting` too when its files hold pages (scrub.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import OperationalError

from history.store.models import TURN_COLUMNS
from history.store.postgres import bulk

# How long a live turn waits for its partition before it waits in the table instead.
WAIT_MS = 1_000
MOVE_ROWS = 1_000
LOCK_NOT_AVAILABLE = "55P03"

_NAMES = [column.key for column in TURN_COLUMNS]
_WAIT = text(
    f"INSERT INTO turns_waiting ({', '.join(_NAMES)})"
    f" VALUES ({', '.join(':' + name for name in _NAMES)})"
)
_SHORT_WAIT = text(f"SET LOCAL lock_timeout = {WAIT_MS}")
_ANY = text("SELECT EXISTS (SELECT FROM turns_waiting)")
_TAKE = text(
    f"SELECT id, {', '.join(_NAMES)} FROM turns_waiting ORDER BY id LIMIT {MOVE_ROWS}"
    " FOR UPDATE SKIP LOCKED"
)
_FORGOTTEN = text(
    "SELECT session_id FROM forgotten_sessions WHERE session_id = ANY(CAST(:ids AS varchar[]))"
)
_DONE = text("DELETE FROM turns_waiting WHERE id = ANY(CAST(:ids AS integer[]))")
_FORGET = text("DELETE FROM turns_waiting WHERE session_id = ANY(CAST(:ids AS varchar[]))")
_FORGET_IN = text(
    "DELETE FROM turns_waiting WHERE session_id = ANY(CAST(:ids AS varchar[]))"
    " AND project = :project"
)
_EXPIRE = text("DELETE FROM turns_waiting WHERE asked_at < :before")
_EXPIRE_IN = text("DELETE FROM turns_waiting WHERE asked_at < :before AND project = :project")


def lock_waited_out(exc: OperationalError) -> bool:
    return getattr(exc.orig, "sqlstate", None) == LOCK_NOT_AVAILABLE


def wait_briefly(conn: Connection) -> None:
    """In a record's transaction: give up on a held partition after WAIT_MS."""
    conn.execute(_SHORT_WAIT)


def add(conn: Connection, values: dict[str, Any]) -> None:
    row = dict(values)
    row["asked_at"] = row["asked_at"].astimezone(UTC).replace(tzinfo=None)
    conn.execute(_WAIT, row)


def forget(conn: Connection, session_ids: Sequence[str], project: str | None) -> int:
    """In a forget's transaction: the waiting turns of the sessions (of `project` when given)."""
    if project is None:
        return int(conn.execute(_FORGET, {"ids": list(session_ids)}).rowcount)
    return int(conn.execute(_FORGET_IN, {"ids": list(session_ids), "project": project}).rowcount)


def expire(conn: Connection, project: str | None, before: datetime) -> int:
    """In an expiry's transaction: the waiting turns asked before `before`."""
    cutoff = before if before.tzinfo is None else before.astimezone(UTC).replace(tzinfo=None)
    if project is None:
        return int(conn.execute(_EXPIRE, {"before": cutoff}).rowcount)
    return int(conn.execute(_EXPIRE_IN, {"before": cutoff, "project": project}).rowcount)


def move(engine: Engine, wait_ms: int = WAIT_MS) -> bool:
    """Move waiting turns into `turns`; True when some moved. Gives up when their partition is
    still held past `wait_ms`: the next caller tries again."""
    moved = False
    while True:
        try:
            with engine.begin() as conn:
                if not conn.execute(_ANY).scalar_one():
                    return moved
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {int(wait_ms)}")
                taken = conn.execute(_TAKE).all()
                if not taken:
                    return moved
                sessions = list({row.session_id for row in taken})
                gone = set(conn.execute(_FORGOTTEN, {"ids": sessions}).scalars())
                latest: dict[str, dict[str, Any]] = {}
                for row in taken:  # in order: the last of a turn id wins
                    if row.session_id not in gone:
                        latest[row.turn_id] = {name: getattr(row, name) for name in _NAMES}
                if latest:
                    for values in latest.values():
                        values["asked_at"] = values["asked_at"].replace(tzinfo=UTC)
                    bulk.upsert_rows(conn, list(latest.values()))
                conn.execute(_DONE, {"ids": [row.id for row in taken]})
                moved = True
        except OperationalError as exc:
            if not lock_waited_out(exc):
                raise
            return moved

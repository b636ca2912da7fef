"""What a forget still owes, kept in the database (migration 0008) so that whichever process
comes next (a record, the service's upkeep, a later hook, `recall doctor`) finishes it: the
conversations whose turns are still being deleted (`forget_work`), and the scrub that makes the
deleted text unrecoverable from the storage's bytes (`owed_scrub`, at most one row)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Connection, delete, insert, select, update

from history.store.models import ForgetWork, OwedScrub
from history.store.rows import chunks

# What a step of the owed work leaves: nothing, more to do now, or more that waits for a reader
# of an older snapshot to let go.
ScrubState = Literal["done", "more", "blocked"]

_ROW = 1


def owe_scrub(
    conn: Connection,
    dialect_insert: Callable[[Any], Any],
    rewrite_index: bool = False,
    since_xid: str | None = None,
) -> None:
    """Record, in the forget's transaction, that a scrub is owed from its commit on. A rewrite
    of the full-text index already under way starts again: it would miss this forget's rows."""
    found = scrub(conn)
    if found is None:
        values = {"owed_at": datetime.now(UTC), "rewrite_index": rewrite_index}
        conn.execute(
            insert(OwedScrub), [{"id": _ROW, "rewriting": False, "since_xid": since_xid, **values}]
        )
        return
    changes: dict[str, Any] = {"owed_at": datetime.now(UTC)}
    if rewrite_index:
        changes.update(rewrite_index=True, rewriting=False)
    if since_xid is not None:
        changes["since_xid"] = since_xid  # the newest forget's: older snapshots may see its rows
    conn.execute(update(OwedScrub).where(OwedScrub.id == _ROW).values(**changes))


@dataclass(frozen=True)
class Owed:
    owed_at: datetime
    rewrite_index: bool
    rewriting: bool
    since_xid: str | None


def scrub(conn: Connection) -> Owed | None:
    columns = (OwedScrub.owed_at, OwedScrub.rewrite_index, OwedScrub.rewriting, OwedScrub.since_xid)
    row = conn.execute(select(*columns).where(OwedScrub.id == _ROW)).first()
    return None if row is None else Owed(row[0], bool(row[1]), bool(row[2]), row[3])


def scrub_owed(conn: Connection) -> bool:
    return conn.execute(select(OwedScrub.id)).first() is not None


def set_rewrite(conn: Connection, rewrite_index: bool, rewriting: bool) -> None:
    conn.execute(
        update(OwedScrub)
        .where(OwedScrub.id == _ROW)
        .values(rewrite_index=rewrite_index, rewriting=rewriting)
    )


def settle(conn: Connection, owed_at: datetime) -> bool:
    """The scrub owed since `owed_at` is done; a forget since then still owes its own."""
    done = delete(OwedScrub).where(OwedScrub.id == _ROW, OwedScrub.owed_at == owed_at)
    return bool(conn.execute(done).rowcount)


def add_work(conn: Connection, pairs: Sequence[tuple[str, str | None]]) -> None:
    now = datetime.now(UTC)
    if pairs:
        conn.execute(
            insert(ForgetWork),
            [{"session_id": s, "project": p, "owed_at": now} for s, p in pairs],
        )


def add_expiry(conn: Connection, pairs: Sequence[tuple[str, str]], before: datetime) -> None:
    """List the conversations' turns (of their project) asked before `before` as owed: an
    expiry in batches. Search leaves them out by their cutoff meanwhile."""
    now = datetime.now(UTC)
    for chunk in chunks(pairs):
        listed = [
            {"session_id": s, "project": p, "owed_at": now, "asked_before": before}
            for s, p in chunk
        ]
        conn.execute(insert(ForgetWork), listed)


def work(conn: Connection) -> set[tuple[str, str | None]]:
    """The conversations (and the project, None: every project) still being deleted."""
    found = select(ForgetWork.session_id, ForgetWork.project).where(
        ForgetWork.asked_before.is_(None)
    )
    return {(s, p) for s, p in conn.execute(found)}


def drop_work(conn: Connection, session_ids: Sequence[str]) -> None:
    for chunk in chunks(session_ids):
        conn.execute(delete(ForgetWork).where(ForgetWork.session_id.in_(chunk)))


def hidden(pairs: set[tuple[str, str | None]], session_id: str, project: str) -> bool:
    return (session_id, None) in pairs or (session_id, project) in pairs

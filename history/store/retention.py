"""Retention in the database (migration 0017): the settings, the cutoffs expiries left, and the
conditions that leave out of counts what search leaves out (turns past their retention, and
those a forget cut short by a crash still hides)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    case,
    delete,
    func,
    literal,
    select,
)
from sqlalchemy.exc import DBAPIError

from history.retention import EVERY as EVERY
from history.retention import NEVER, RetentionPolicy
from history.store import hiding, rescan
from history.store.models import (
    Conversation,
    ForgetWork,
    RetentionCutoff,
    RetentionSetting,
    Turn,
    UtcDateTime,
)


def _key(project: str | None) -> str:
    return EVERY if project is None else project


def _project(key: str) -> str | None:
    return None if key == EVERY else key


def load(conn: Connection) -> RetentionPolicy:
    """The settings and cutoffs; none on a file opened read-only before migration 0017."""
    try:
        settings = conn.execute(select(RetentionSetting.project, RetentionSetting.keep_days))
        # The table also says which secret rules the stored turns follow (rescan.py).
        keep = {_project(key): int(days) for key, days in settings if not rescan.reserved(key)}
        cutoffs = conn.execute(select(RetentionCutoff.project, RetentionCutoff.asked_before))
        before = {_project(key): when for key, when in cutoffs}
    except DBAPIError:
        conn.rollback()
        return RetentionPolicy()
    return RetentionPolicy(keep, before)


def set_days(
    conn: Connection, insert: Callable[[Any], Any], project: str | None, days: int
) -> None:
    statement = insert(RetentionSetting)
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=[RetentionSetting.project],
            set_={"keep_days": statement.excluded.keep_days, "set_at": statement.excluded.set_at},
        ),
        {"project": _key(project), "keep_days": days, "set_at": datetime.now(UTC)},
    )


def unset_days(conn: Connection, project: str | None) -> bool:
    gone = delete(RetentionSetting).where(RetentionSetting.project == _key(project))
    return bool(conn.execute(gone).rowcount)


def add_cutoff(
    conn: Connection, insert: Callable[[Any], Any], project: str | None, before: datetime
) -> None:
    """Remember that the project's turns asked before `before` are forgotten (a later cutoff
    replaces an earlier one, never the other way round)."""
    key = _key(project)
    found = conn.execute(
        select(RetentionCutoff.asked_before).where(RetentionCutoff.project == key)
    ).scalar()
    if found is not None and found >= before:
        return
    statement = insert(RetentionCutoff)
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=[RetentionCutoff.project],
            set_={"asked_before": statement.excluded.asked_before},
        ),
        {"project": key, "asked_before": before},
    )


def kept_condition(policy: RetentionPolicy, now: datetime) -> ColumnElement[bool] | None:
    """`turns` rows within their project's retention; None when every row is."""
    if not policy:
        return None
    named = sorted(policy.named())
    default = policy.default_cutoff(now)
    if not named:
        return None if default is None else Turn.asked_at >= _when(default)
    whens = [(Turn.project == p, _when(policy.cutoff(p, now) or NEVER)) for p in named]
    return Turn.asked_at >= case(*whens, else_=_when(default or NEVER))


def _when(moment: datetime) -> ColumnElement[datetime]:
    return literal(moment, UtcDateTime())


def shown_conditions(conn: Connection, now: datetime | None = None) -> list[ColumnElement[bool]]:
    """What leaves out of a count of `turns` the rows search leaves out: past their retention,
    or of a conversation a forget under way (or cut short by a crash) still deletes."""
    conditions: list[ColumnElement[bool]] = []
    kept = kept_condition(load(conn), now or datetime.now(UTC))
    if kept is not None:
        conditions.append(kept)
    try:
        forgetting = conn.execute(
            select(ForgetWork.id).where(ForgetWork.asked_before.is_(None)).limit(1)
        ).first()
    except DBAPIError:
        conn.rollback()
        return conditions
    if forgetting is not None:
        conditions.append(~hiding.being_forgotten(Turn.session_id, Turn.project))
    return conditions


def expiring(conn: Connection) -> bool:
    """An expiry listed as owed is still deleting (forget_work rows with `asked_before`)."""
    found = select(ForgetWork.id).where(ForgetWork.asked_before.is_not(None)).limit(1)
    return conn.execute(found).first() is not None


def conversations_before(
    conn: Connection, project: str | None, before: datetime
) -> list[tuple[str, str]]:
    """The conversations (session, project) holding a turn of `project` asked before `before`."""
    found = select(Conversation.session_id, Conversation.project).where(
        Conversation.first_asked_at < before
    )
    if project is not None:
        found = found.where(Conversation.project == project)
    return [(session, where) for session, where in conn.execute(found)]


def turns_before(conn: Connection, project: str | None, before: datetime) -> int:
    found = select(func.count()).select_from(Turn).where(Turn.asked_at < before)
    if project is not None:
        found = found.where(Turn.project == project)
    return int(conn.execute(found).scalar_one())

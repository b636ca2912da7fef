"""What a forget under way hides, as SQL conditions: the conversations `forget_work` lists are
out of every view and count from the forget's first commit on, while its steps still delete
their rows (history/store/owed.py). Conditions, not a list read first: a page of conversations
holds as many as asked, whatever the forget hides."""

from __future__ import annotations

from sqlalchemy import (
    ColumnElement,
    Connection,
    SQLColumnExpression,
    and_,
    exists,
    func,
    or_,
    select,
)

from history.store.models import Conversation, ForgetWork


def being_forgotten(
    session_id: SQLColumnExpression[str], project: SQLColumnExpression[str]
) -> ColumnElement[bool]:
    """The conversation (the row's `session_id` in `project`) is one a forget under way, or cut
    short by a crash, is still deleting (a forget of sessions lists no project: every one). An
    expiry's rows hide nothing here: its cutoff does."""
    return exists().where(
        ForgetWork.session_id == session_id,
        or_(ForgetWork.project.is_(None), ForgetWork.project == project),
        ForgetWork.asked_before.is_(None),
    )


def project_being_forgotten(project: SQLColumnExpression[str]) -> ColumnElement[bool]:
    """A forget of the whole project is under way."""
    return exists().where(ForgetWork.project == project, ForgetWork.asked_before.is_(None))


def hidden_per_project(conn: Connection) -> dict[str, tuple[int, int]]:
    """The turns and conversations each project's summary row still counts of the conversations
    a forget under way (or cut short) hides: a list of projects subtracts them. Read from
    `forget_work` (empty but during a forget), each listed conversation by its key."""
    work = (
        select(ForgetWork.session_id, ForgetWork.project)
        .where(ForgetWork.asked_before.is_(None))
        .distinct()
        .subquery()
    )
    listed = and_(
        work.c.session_id == Conversation.session_id,
        or_(work.c.project.is_(None), work.c.project == Conversation.project),
    )
    found = (
        select(Conversation.project, func.sum(Conversation.turns), func.count())
        .join(work, listed)
        .group_by(Conversation.project)
    )
    return {project: (int(turns), int(count)) for project, turns, count in conn.execute(found)}

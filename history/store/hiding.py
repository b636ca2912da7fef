"""What a forget under way hides, as SQL conditions: the conversations `forget_work` lists are
out of every view and count from the forget's first commit on, while its steps still delete
their rows (history/store/owed.py). Conditions, not a list read first: a page of conversations
holds as many as asked, whatever the forget hides."""

from __future__ import annotations

from sqlalchemy import ColumnElement, SQLColumnExpression, exists, or_

from history.store.models import ForgetWork


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

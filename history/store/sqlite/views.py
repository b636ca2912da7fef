"""Reading what was found on SQLite: a turn, a conversation, the lists of conversations and
projects. The lists read the summary rows the triggers keep (history/store/sqlite/summaries.py)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, select, tuple_

from history import domain
from history.domain import EDITED_SHOWN, FIRST_ASKED_CHARS, first_asked
from history.paging import PageKey
from history.store.models import TURN_COLUMNS, Conversation, ConversationEdit, Project, Turn


def turn_fields(row: Sequence[Any]) -> dict[str, Any]:
    """The keyword arguments of a `domain.Turn` from a row of `TURN_COLUMNS`."""
    turn_id, session_id, project, asked_at, tainted, asked, answered, files, edited, tools = row
    return {
        "turn_id": turn_id,
        "session_id": session_id,
        "project": project,
        "asked_at": asked_at,
        "tainted": bool(tainted),
        "asked": asked,
        "answered": answered,
        "files": tuple(json.loads(files)),
        "edited": tuple(json.loads(edited)),
        "tools": tuple(json.loads(tools)),
    }


SUMMARY_COLUMNS = (
    Conversation.session_id,
    Conversation.project,
    func.substr(Turn.asked, 1, FIRST_ASKED_CHARS + 1),
    Conversation.first_asked_at,
    Conversation.last_asked_at,
    Conversation.turns,
    Conversation.tainted_turns,
)
PROJECT_COLUMNS = (
    Project.project,
    Project.turns,
    Project.conversations,
    Project.first_asked_at,
    Project.last_asked_at,
)


class SqliteViews:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def turn(self, turn_id: str) -> domain.Turn | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(*TURN_COLUMNS).where(Turn.turn_id == turn_id)).first()
        return None if row is None else domain.Turn(**turn_fields(row))

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[domain.Turn]:
        in_session = Turn.session_id == session_id
        position = tuple_(Turn.asked_at, Turn.id)
        with self.engine.connect() as conn:
            if around is None:
                ordered = select(*TURN_COLUMNS).where(in_session).order_by(Turn.asked_at, Turn.id)
                return [domain.Turn(**turn_fields(row)) for row in conn.execute(ordered)]
            anchor = conn.execute(
                select(Turn.asked_at, Turn.id).where(in_session, Turn.turn_id == around)
            ).first()
            if anchor is None:
                return []
            at = tuple_(*anchor)
            before = (
                select(*TURN_COLUMNS)
                .where(in_session, position < at)
                .order_by(Turn.asked_at.desc(), Turn.id.desc())
                .limit(radius)
            )
            after = (
                select(*TURN_COLUMNS)
                .where(in_session, position >= at)
                .order_by(Turn.asked_at, Turn.id)
                .limit(radius + 1)
            )
            rows = [*reversed(conn.execute(before).all()), *conn.execute(after)]
        return [domain.Turn(**turn_fields(row)) for row in rows]

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[domain.ConversationSummary]:
        newest = (Conversation.last_asked_at, Conversation.session_id, Conversation.project)
        statement = (
            select(*SUMMARY_COLUMNS)
            .join(Turn, Turn.id == Conversation.first_id)
            .order_by(*(column.desc() for column in newest))
            .limit(limit)
        )
        if project is not None:
            statement = statement.where(Conversation.project == project)
        if since is not None:
            statement = statement.where(Conversation.last_asked_at >= since)
        if before is not None and project is not None:
            # One project: its index orders by (project, time, session) and the project is fixed.
            key = tuple_(Conversation.last_asked_at, Conversation.session_id)
            statement = statement.where(key < tuple_(before.last_asked_at, before.session_id))
        elif before is not None:
            key = tuple_(*newest)
            statement = statement.where(
                key < tuple_(before.last_asked_at, before.session_id, before.project)
            )
        with self.engine.connect() as conn:
            found = conn.execute(statement).all()
            edited = _most_edited(conn, [(row[0], row[1]) for row in found])
        return [
            domain.ConversationSummary(
                session_id=session_id,
                project=project_key,
                first_asked=first_asked(asked),
                first_asked_at=first_at,
                last_asked_at=last_at,
                turns=turns,
                tainted_turns=tainted,
                edited=edited.get((session_id, project_key), ()),
            )
            for session_id, project_key, asked, first_at, last_at, turns, tainted in found
        ]

    def projects(self) -> list[domain.ProjectSummary]:
        statement = select(*PROJECT_COLUMNS).order_by(Project.last_asked_at.desc(), Project.project)
        with self.engine.connect() as conn:
            return [domain.ProjectSummary(*row) for row in conn.execute(statement)]


def _most_edited(
    conn: Connection, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, ...]]:
    """The files each conversation edited in most turns (ties: by path), at most EDITED_SHOWN."""
    if not keys:
        return {}
    edits = conn.execute(
        select(ConversationEdit.session_id, ConversationEdit.project, ConversationEdit.path)
        .where(tuple_(ConversationEdit.session_id, ConversationEdit.project).in_(keys))
        .order_by(ConversationEdit.turns.desc(), ConversationEdit.path)
    )
    most: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    for session_id, project, path in edits:
        if len(most[(session_id, project)]) < EDITED_SHOWN:
            most[(session_id, project)].append(path)
    return {key: tuple(paths) for key, paths in most.items()}

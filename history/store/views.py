"""Reading what was found, on either SQL backend: a turn, a conversation, the lists of
conversations and projects. The lists read the summary rows the triggers keep
(history/store/sqlite/summaries.py, history/store/postgres/summaries.py). What a forget under
way still deletes is left out in the SQL (hiding.py), so a page holds as many as asked."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BindParameter, Connection, Engine, bindparam, func, select, tuple_

from history import domain
from history.domain import EDITED_SHOWN, FIRST_ASKED_CHARS, first_asked
from history.paging import PageKey
from history.store.hiding import being_forgotten, hidden_per_project, project_being_forgotten
from history.store.models import (
    TURN_COLUMNS,
    Conversation,
    ConversationEdit,
    Project,
    Turn,
    UtcDateTime,
)
from history.store.row_values import turn_fields as turn_fields

# Every statement is built once: SQLAlchemy then reuses its compiled form and its result map
# (a statement built per call costs more than the query it runs).
SHOWN_TURN = ~being_forgotten(Turn.session_id, Turn.project)
_SHOWN_CONVERSATION = ~being_forgotten(Conversation.session_id, Conversation.project)
_TURN = select(*TURN_COLUMNS).where(Turn.turn_id == bindparam("turn_id"), SHOWN_TURN)
# A range on the unique turn_id index: every id from the prefix up to the next prefix of its
# length, in order (no LIKE, so `%` and `_` in an id are plain characters).
_PREFIXED = (
    select(Turn.turn_id)
    .where(Turn.turn_id >= bindparam("low"), Turn.turn_id < bindparam("high"), SHOWN_TURN)
    .order_by(Turn.turn_id)
    .limit(bindparam("limit"))
)
_FROM_PREFIX = (
    select(Turn.turn_id)
    .where(Turn.turn_id >= bindparam("low"), SHOWN_TURN)
    .order_by(Turn.turn_id)
    .limit(bindparam("limit"))
)
_LAST_CHARACTER = 0x10FFFF
_SURROGATES = range(0xD800, 0xE000)
_IN_SESSION = Turn.session_id == bindparam("session_id")
_POSITION = tuple_(Turn.asked_at, Turn.id)
_ANCHOR = tuple_(bindparam("asked_at", type_=UtcDateTime()), bindparam("id"))
_WHOLE = select(*TURN_COLUMNS).where(_IN_SESSION, SHOWN_TURN).order_by(Turn.asked_at, Turn.id)
_ANCHORED = select(Turn.asked_at, Turn.id).where(
    _IN_SESSION, Turn.turn_id == bindparam("turn_id"), SHOWN_TURN
)
_BEFORE = (
    select(*TURN_COLUMNS)
    .where(_IN_SESSION, _POSITION < _ANCHOR, SHOWN_TURN)
    .order_by(Turn.asked_at.desc(), Turn.id.desc())
    .limit(bindparam("radius"))
)
_FROM = _WHOLE.where(_POSITION >= _ANCHOR).limit(bindparam("count"))

# Newest first, by the page key: (last turn's time, session id, project).
_NEWEST = (Conversation.last_asked_at, Conversation.session_id, Conversation.project)
_SINCE = Conversation.last_asked_at >= bindparam("since", type_=UtcDateTime())
_KEY: tuple[BindParameter[Any], ...] = (
    bindparam("last_asked_at", type_=UtcDateTime()),
    bindparam("session_id"),
    bindparam("project"),
)
_PAGE = (
    select(
        Conversation.session_id,
        Conversation.project,
        func.substr(Turn.asked, 1, FIRST_ASKED_CHARS + 1),
        Conversation.first_asked_at,
        Conversation.last_asked_at,
        Conversation.turns,
        Conversation.tainted_turns,
    )
    .join(Turn, Turn.id == Conversation.first_id)
    .where(_SINCE, _SHOWN_CONVERSATION)
    .order_by(*(column.desc() for column in _NEWEST))
    .limit(bindparam("limit"))
)
_IN_PROJECT = Conversation.project == bindparam("project")
# One project: its index orders by (project, time, session), the project fixed.
_PAGES = {
    (False, False): _PAGE,
    (False, True): _PAGE.where(tuple_(*_NEWEST) < tuple_(*_KEY)),
    (True, False): _PAGE.where(_IN_PROJECT),
    (True, True): _PAGE.where(_IN_PROJECT, tuple_(*_NEWEST[:2]) < tuple_(*_KEY[:2])),
}
_EDITS = (
    select(ConversationEdit.session_id, ConversationEdit.project, ConversationEdit.path)
    .where(
        tuple_(ConversationEdit.session_id, ConversationEdit.project).in_(
            bindparam("conversations", expanding=True)
        )
    )
    .order_by(ConversationEdit.turns.desc(), ConversationEdit.path)
)
_PROJECTS = (
    select(
        Project.project,
        Project.turns,
        Project.conversations,
        Project.first_asked_at,
        Project.last_asked_at,
    )
    .where(~project_being_forgotten(Project.project))
    .order_by(Project.last_asked_at.desc(), Project.project)
)
# `since` when the caller gave none: before any turn.
_EVER = datetime(1970, 1, 1, tzinfo=UTC)


class SqlViews:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def turn(
        self, turn_id: str, project: str | None = None, lock_timeout_ms: int | None = None
    ) -> domain.Turn | None:
        """The turn; with `project`, looked for in that project only (on PostgreSQL, with
        `lock_timeout_ms` instead of the connection's lock timeout)."""
        statement = _TURN if project is None else _TURN.where(Turn.project == project)
        with self.engine.connect() as conn:
            if lock_timeout_ms is not None:
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
            row = conn.execute(statement, {"turn_id": turn_id}).first()
        return None if row is None else domain.Turn(**turn_fields(row))

    def turn_ids_by_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to `limit` ids of the turns whose id starts with `prefix`, in order. Both
        backends compare ids by code point (SQLite's BINARY, a C collation on PostgreSQL); the
        ids are checked again here for any other collation."""
        high = _next_prefix(prefix)
        with self.engine.connect() as conn:
            if high is None:
                found = conn.execute(_FROM_PREFIX, {"low": prefix, "limit": limit}).scalars()
            else:
                params = {"low": prefix, "high": high, "limit": limit}
                found = conn.execute(_PREFIXED, params).scalars()
            return [turn_id for turn_id in found if turn_id.startswith(prefix)]

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[domain.Turn]:
        with self.engine.connect() as conn:
            if around is None:
                rows = conn.execute(_WHOLE, {"session_id": session_id}).all()
            else:
                anchored = {"session_id": session_id, "turn_id": around}
                anchor = conn.execute(_ANCHORED, anchored).first()
                if anchor is None:
                    return []
                at = {"session_id": session_id, "asked_at": anchor[0], "id": anchor[1]}
                before = conn.execute(_BEFORE, {**at, "radius": radius}).all()
                rows = [*reversed(before), *conn.execute(_FROM, {**at, "count": radius + 1})]
        return [domain.Turn(**turn_fields(row)) for row in rows]

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[domain.ConversationSummary]:
        params: dict[str, Any] = {"since": since or _EVER, "limit": limit, "project": project}
        if before is not None:
            params |= {"last_asked_at": before.last_asked_at, "session_id": before.session_id}
            if project is None:
                params["project"] = before.project
        statement = _PAGES[project is not None, before is not None]
        with self.engine.connect() as conn:
            found = conn.execute(statement, params).all()
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
        """Every project's summary, without the conversations a forget still hides."""
        with self.engine.connect() as conn:
            rows = conn.execute(_PROJECTS).all()
            hidden = hidden_per_project(conn)
        found = []
        for project, turns, conversations, first_at, last_at in rows:
            hidden_turns, hidden_conversations = hidden.get(project, (0, 0))
            if turns > hidden_turns:
                shown = (turns - hidden_turns, conversations - hidden_conversations)
                found.append(domain.ProjectSummary(project, *shown, first_at, last_at))
        return found


def _next_prefix(prefix: str) -> str | None:
    """The first string past every string that starts with `prefix` (None: there is none)."""
    stem = prefix.rstrip(chr(_LAST_CHARACTER))
    if not stem:
        return None
    following = ord(stem[-1]) + 1
    if following in _SURROGATES:  # not a character a database stores
        following = _SURROGATES.stop
    return stem[:-1] + chr(following)


def _most_edited(
    conn: Connection, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, ...]]:
    """The files each conversation edited in most turns (ties: by path), at most EDITED_SHOWN."""
    if not keys:
        return {}
    most: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    for session_id, project, path in conn.execute(_EDITS, {"conversations": keys}):
        if len(most[(session_id, project)]) < EDITED_SHOWN:
            most[(session_id, project)].append(path)
    return {key: tuple(paths) for key, paths in most.items()}

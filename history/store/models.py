"""The `turns` table as a typed SQLAlchemy model.

The schema itself is made only by Alembic (see alembic/versions); this model describes it for
queries and for `alembic check`, which compares the two.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Computed,
    DateTime,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Text,
    TypeDecorator,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, InstrumentedAttribute, Mapped, mapped_column

from history.domain import TURN_FIELDS

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """Stores naive UTC (sortable text on SQLite), returns timezone-aware UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("asked_at must be timezone-aware")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Turn(Base):
    """One finished turn: what was asked, what was answered, the files and tools it touched."""

    __tablename__ = "turns"

    # A plain INTEGER PRIMARY KEY is the rowid, which the external-content FTS table points at.
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_id: Mapped[str] = mapped_column(String, unique=True)
    session_id: Mapped[str] = mapped_column(String)
    project: Mapped[str] = mapped_column(String)
    asked_at: Mapped[datetime] = mapped_column(UtcDateTime)
    tainted: Mapped[bool] = mapped_column(Boolean, default=False)
    asked: Mapped[str] = mapped_column(Text)
    answered: Mapped[str] = mapped_column(Text)
    # JSON arrays of strings.
    files: Mapped[str] = mapped_column(Text, default="[]")
    edited: Mapped[str] = mapped_column(Text, default="[]")
    tools: Mapped[str] = mapped_column(Text, default="[]")
    # What the turn did, one entry a line (history/importers/whole.py); '' before revision 0016.
    work: Mapped[str] = mapped_column(Text, default="", server_default=text("''"))
    # One full-text token per project; computed by SQLite, never written.
    project_tag: Mapped[str | None] = mapped_column(
        String, Computed("'p' || lower(hex(project))", persisted=False)
    )

    __table_args__ = (
        # A conversation's turns in order; the summaries' triggers find its first and last.
        Index("ix_turns_session_id_asked_at", "session_id", "asked_at"),
        Index("ix_turns_project_asked_at", "project", "asked_at"),
        Index("ix_turns_asked_at", "asked_at"),
    )


# The columns of a turn's fields, in the order of its fields (history.domain.TURN_FIELDS).
TURN_COLUMNS: tuple[InstrumentedAttribute[Any], ...] = tuple(
    getattr(Turn, name) for name in TURN_FIELDS
)


class ForgottenSession(Base):
    """A conversation the user deleted; importers skip it unless asked to bring it back."""

    __tablename__ = "forgotten_sessions"

    session_id: Mapped[str] = mapped_column(String, primary_key=True)
    forgotten_at: Mapped[datetime] = mapped_column(UtcDateTime)


# Summary rows, kept in step with `turns` by triggers (history/store/sqlite/summaries.py), so that
# listing conversations and projects reads a few rows, not every turn.


class Conversation(Base):
    """One conversation's turns in one project (a conversation that moved between projects has
    a row in each)."""

    __tablename__ = "conversations"

    session_id: Mapped[str] = mapped_column(String)
    project: Mapped[str] = mapped_column(String)
    turns: Mapped[int] = mapped_column(Integer)
    tainted_turns: Mapped[int] = mapped_column(Integer)
    # The rowid (`turns.id`) of its first turn, whose question the list shows.
    first_id: Mapped[int] = mapped_column(Integer)
    first_asked_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_asked_at: Mapped[datetime] = mapped_column(UtcDateTime)

    __table_args__ = (
        PrimaryKeyConstraint("session_id", "project"),
        # Newest first, with the page key's tie-breakers: every project, and one project.
        Index("ix_conversations_last_asked_at", "last_asked_at", "session_id", "project"),
        Index("ix_conversations_project_last_asked_at", "project", "last_asked_at", "session_id"),
    )


class ConversationEdit(Base):
    """How many of a conversation's turns edited a file."""

    __tablename__ = "conversation_edits"

    session_id: Mapped[str] = mapped_column(String)
    project: Mapped[str] = mapped_column(String)
    path: Mapped[str] = mapped_column(String)
    turns: Mapped[int] = mapped_column(Integer)

    __table_args__ = (PrimaryKeyConstraint("session_id", "project", "path"),)


class Project(Base):
    __tablename__ = "projects"

    project: Mapped[str] = mapped_column(String, primary_key=True)
    turns: Mapped[int] = mapped_column(Integer)
    conversations: Mapped[int] = mapped_column(Integer)
    first_asked_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_asked_at: Mapped[datetime] = mapped_column(UtcDateTime)


# What a forget still owes (migration 0008): kept in the database so that any process finishes
# it (history/store/owed.py).


class ForgetWork(Base):
    """A conversation (of `project` only, or of every project when None) whose turns a forget
    under way is still deleting; search hides them meanwhile."""

    __tablename__ = "forget_work"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String)
    project: Mapped[str | None] = mapped_column(String, nullable=True)
    owed_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # An expiry (migration 0017): only the conversation's turns asked before this time go, and
    # search leaves them out by the retention cutoff, not by this row.
    asked_before: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)

    __table_args__ = (Index("ix_forget_work_session_id", "session_id"),)


class OwedScrub(Base):
    """At most one row: forgotten turns may still be in the storage's bytes."""

    __tablename__ = "owed_scrub"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    owed_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # SQLite: the forget left its words in the full-text index's segments (FTS5's secure-delete
    # was off for its batches): the index is rewritten, step by step, once `rewriting` starts.
    rewrite_index: Mapped[bool] = mapped_column(Boolean)
    rewriting: Mapped[bool] = mapped_column(Boolean)
    # PostgreSQL: the forget's transaction id; a snapshot older than it holds the rewrite back.
    since_xid: Mapped[str | None] = mapped_column(String, nullable=True)


# Retention (migration 0017): history/store/retention.py. `project` '' means every project.


class RetentionSetting(Base):
    """How many days turns are kept (of one project, or of every project)."""

    __tablename__ = "retention_settings"

    project: Mapped[str] = mapped_column(String, primary_key=True)
    keep_days: Mapped[int] = mapped_column(Integer)
    set_at: Mapped[datetime] = mapped_column(UtcDateTime)


class RetentionCutoff(Base):
    """An expiry's tombstone: the project's turns asked before `asked_before` were forgotten."""

    __tablename__ = "retention_cutoffs"

    project: Mapped[str] = mapped_column(String, primary_key=True)
    asked_before: Mapped[datetime] = mapped_column(UtcDateTime)


# Members' keys and the audit trail (migration 0018): history/store/sql_access.py.


class AccessKeyRow(Base):
    """A member's key: a salted digest of its secret, never the secret (history/access.py)."""

    __tablename__ = "access_keys"

    key_id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    salt: Mapped[str] = mapped_column(String)
    digest: Mapped[str] = mapped_column(String)
    rights: Mapped[str] = mapped_column(String)
    # A JSON array of stored project keys; NULL: every project.
    projects: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class AuditEventRow(Base):
    """What was forgotten, expired, added or revoked, by whom: never a turn's text."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    actor: Mapped[str] = mapped_column(String)
    action: Mapped[str] = mapped_column(String)
    session_id: Mapped[str | None] = mapped_column(String, nullable=True)
    project: Mapped[str | None] = mapped_column(String, nullable=True)
    turns: Mapped[int | None] = mapped_column(Integer, nullable=True)
    key_name: Mapped[str | None] = mapped_column(String, nullable=True)

    __table_args__ = (Index("ix_audit_events_at", "at"),)

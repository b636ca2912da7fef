"""The tables as typed SQLAlchemy Core tables, each named by a class whose attributes are its
columns (`Turn.asked`), as the ORM's declarative classes would, without loading the ORM: a
search or a hook is a new process, and the ORM's import was a sixth of a search's start-up
(tests/e2e/test_cold_start.py keeps it out).

The schema itself is made only by Alembic (see alembic/versions); these tables describe it for
queries and for `alembic check`, which compares the two.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    Boolean,
    Column,
    Computed,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    TypeDecorator,
    text,
)
from sqlalchemy.engine import Dialect

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


class Base:
    """A table, declared by a subclass (its `Column` attributes, then its `__table_args__`) and
    made by its one instance, which stands for the table where a statement takes one
    (`insert(Turn)`) and names its columns (`Turn.asked`, typed as the column's values)."""

    metadata: ClassVar[MetaData] = MetaData(naming_convention=NAMING_CONVENTION)
    __tablename__: ClassVar[str]
    __table_args__: ClassVar[tuple[Any, ...]] = ()

    def __init__(self) -> None:
        columns = [value for value in vars(type(self)).values() if isinstance(value, Column)]
        self.__table__ = Table(self.__tablename__, Base.metadata, *columns, *self.__table_args__)

    def __clause_element__(self) -> Any:  # typed for `insert(Turn)`, which takes a protocol
        return self.__table__


class TurnTable(Base):
    """One finished turn: what was asked, what was answered, the files and tools it touched."""

    __tablename__ = "turns"

    # A plain INTEGER PRIMARY KEY is the rowid, which the external-content FTS table points at.
    id = Column("id", Integer, primary_key=True)
    turn_id = Column("turn_id", String, unique=True, nullable=False)
    session_id = Column("session_id", String, nullable=False)
    project = Column("project", String, nullable=False)
    asked_at = Column("asked_at", UtcDateTime, nullable=False)
    tainted = Column("tainted", Boolean, default=False, nullable=False)
    asked = Column("asked", Text, nullable=False)
    answered = Column("answered", Text, nullable=False)
    # JSON arrays of strings.
    files = Column("files", Text, default="[]", nullable=False)
    edited = Column("edited", Text, default="[]", nullable=False)
    tools = Column("tools", Text, default="[]", nullable=False)
    # What the turn did, one entry a line (history/importers/whole.py); '' before revision 0016.
    work = Column("work", Text, default="", server_default=text("''"), nullable=False)
    # One full-text token per project; computed by SQLite, never written.
    project_tag = Column(
        "project_tag", String, Computed("'p' || lower(hex(project))", persisted=False)
    )

    __table_args__ = (
        # A conversation's turns in order; the summaries' triggers find its first and last.
        Index("ix_turns_session_id_asked_at", "session_id", "asked_at"),
        Index("ix_turns_project_asked_at", "project", "asked_at"),
        Index("ix_turns_asked_at", "asked_at"),
    )


Turn = TurnTable()

# The columns of a turn's fields, in the order of its fields (history.domain.TURN_FIELDS).
TURN_COLUMNS: tuple[Column[Any], ...] = tuple(getattr(Turn, name) for name in TURN_FIELDS)


class ForgottenSessionTable(Base):
    """A conversation the user deleted; importers skip it unless asked to bring it back."""

    __tablename__ = "forgotten_sessions"

    session_id = Column("session_id", String, primary_key=True)
    forgotten_at = Column("forgotten_at", UtcDateTime, nullable=False)


ForgottenSession = ForgottenSessionTable()


# Summary rows, kept in step with `turns` by triggers (history/store/sqlite/summaries.py), so that
# listing conversations and projects reads a few rows, not every turn.
class ConversationTable(Base):
    """One conversation's turns in one project (a conversation that moved between projects has
    a row in each)."""

    __tablename__ = "conversations"

    session_id = Column("session_id", String, nullable=False)
    project = Column("project", String, nullable=False)
    turns = Column("turns", Integer, nullable=False)
    tainted_turns = Column("tainted_turns", Integer, nullable=False)
    # The rowid (`turns.id`) of its first turn, whose question the list shows.
    first_id = Column("first_id", Integer, nullable=False)
    first_asked_at = Column("first_asked_at", UtcDateTime, nullable=False)
    last_asked_at = Column("last_asked_at", UtcDateTime, nullable=False)

    __table_args__ = (
        PrimaryKeyConstraint("session_id", "project"),
        # Newest first, with the page key's tie-breakers: every project, and one project.
        Index("ix_conversations_last_asked_at", "last_asked_at", "session_id", "project"),
        Index("ix_conversations_project_last_asked_at", "project", "last_asked_at", "session_id"),
    )


Conversation = ConversationTable()


class ConversationEditTable(Base):
    """How many of a conversation's turns edited a file."""

    __tablename__ = "conversation_edits"

    session_id = Column("session_id", String, nullable=False)
    project = Column("project", String, nullable=False)
    path = Column("path", String, nullable=False)
    turns = Column("turns", Integer, nullable=False)

    __table_args__ = (PrimaryKeyConstraint("session_id", "project", "path"),)


ConversationEdit = ConversationEditTable()


class ProjectTable(Base):
    __tablename__ = "projects"

    project = Column("project", String, primary_key=True)
    turns = Column("turns", Integer, nullable=False)
    conversations = Column("conversations", Integer, nullable=False)
    first_asked_at = Column("first_asked_at", UtcDateTime, nullable=False)
    last_asked_at = Column("last_asked_at", UtcDateTime, nullable=False)


Project = ProjectTable()


# What a forget still owes (migration 0008): kept in the database so that any process finishes
# it (history/store/owed.py).
class ForgetWorkTable(Base):
    """A conversation (of `project` only, or of every project when None) whose turns a forget
    under way is still deleting; search hides them meanwhile."""

    __tablename__ = "forget_work"

    id = Column("id", Integer, primary_key=True)
    session_id = Column("session_id", String, nullable=False)
    project = Column("project", String, nullable=True)
    owed_at = Column("owed_at", UtcDateTime, nullable=False)
    # An expiry (migration 0017): only the conversation's turns asked before this time go, and
    # search leaves them out by the retention cutoff, not by this row.
    asked_before = Column("asked_before", UtcDateTime, nullable=True)

    __table_args__ = (Index("ix_forget_work_session_id", "session_id"),)


ForgetWork = ForgetWorkTable()


class OwedScrubTable(Base):
    """At most one row: forgotten turns may still be in the storage's bytes."""

    __tablename__ = "owed_scrub"

    id = Column("id", Integer, primary_key=True, autoincrement=False)
    owed_at = Column("owed_at", UtcDateTime, nullable=False)
    # SQLite: the forget left its words in the full-text index's segments (FTS5's secure-delete
    # was off for its batches): the index is rewritten, step by step, once `rewriting` starts.
    rewrite_index = Column("rewrite_index", Boolean, nullable=False)
    rewriting = Column("rewriting", Boolean, nullable=False)
    # PostgreSQL: the forget's transaction id; a snapshot older than it holds the rewrite back.
    since_xid = Column("since_xid", String, nullable=True)


OwedScrub = OwedScrubTable()


# Retention (migration 0017): history/store/retention.py. `project` '' means every project.
class RetentionSettingTable(Base):
    """How many days turns are kept (of one project, or of every project)."""

    __tablename__ = "retention_settings"

    project = Column("project", String, primary_key=True)
    keep_days = Column("keep_days", Integer, nullable=False)
    set_at = Column("set_at", UtcDateTime, nullable=False)


RetentionSetting = RetentionSettingTable()


class RetentionCutoffTable(Base):
    """An expiry's tombstone: the project's turns asked before `asked_before` were forgotten."""

    __tablename__ = "retention_cutoffs"

    project = Column("project", String, primary_key=True)
    asked_before = Column("asked_before", UtcDateTime, nullable=False)


RetentionCutoff = RetentionCutoffTable()


# Members' keys and the audit trail (migration 0018): history/store/sql_access.py.
class AccessKeyTable(Base):
    """A member's key: a salted digest of its secret, never the secret (history/access.py)."""

    __tablename__ = "access_keys"

    key_id = Column("key_id", String, primary_key=True)
    name = Column("name", String, unique=True, nullable=False)
    salt = Column("salt", String, nullable=False)
    digest = Column("digest", String, nullable=False)
    rights = Column("rights", String, nullable=False)
    # A JSON array of stored project keys; NULL: every project.
    projects = Column("projects", Text, nullable=True)
    created_at = Column("created_at", UtcDateTime, nullable=False)
    revoked_at = Column("revoked_at", UtcDateTime, nullable=True)


AccessKeyRow = AccessKeyTable()


class AuditEventTable(Base):
    """What was forgotten, expired, added or revoked, by whom: never a turn's text."""

    __tablename__ = "audit_events"

    id = Column("id", Integer, primary_key=True)
    at = Column("at", UtcDateTime, nullable=False)
    actor = Column("actor", String, nullable=False)
    action = Column("action", String, nullable=False)
    session_id = Column("session_id", String, nullable=True)
    project = Column("project", String, nullable=True)
    turns = Column("turns", Integer, nullable=True)
    key_name = Column("key_name", String, nullable=True)

    __table_args__ = (Index("ix_audit_events_at", "at"),)


AuditEventRow = AuditEventTable()


class TurnVectorTable(Base):
    """A turn's vector for search by meaning (history/meaning/vectors.py): the model that made it
    and the unit vector as int8. Deleted with its turn by a trigger on turns (revision 0021;
    PostgreSQL's turns, split by project, have no key on their id alone to refer to)."""

    __tablename__ = "turn_vectors"

    turn_id = Column("turn_id", Integer, primary_key=True)
    model = Column("model", String, nullable=False)
    vector = Column("vector", LargeBinary, nullable=False)


TurnVectorRow = TurnVectorTable()

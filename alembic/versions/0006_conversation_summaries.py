"""Summary rows for the lists of conversations and projects, kept by triggers; a conversation's
turns indexed in time order.

`conversations`, `conversation_edits` and `projects` are filled from the turns already stored,
then kept in step by the triggers of history/store/sqlite/summaries.py (on PostgreSQL, the
trigger functions of history/store/postgres/summaries.py). `ix_turns_session_id`
becomes `ix_turns_session_id_asked_at`: a conversation reads in order from it, and the triggers
find a conversation's new first or last turn through it.

Revision ID: 0006_conversation_summaries
Revises: 0005_merge_off_the_record_path
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import sqlalchemy as sa
from alembic import op

from history.store.postgres import summaries as pg_summaries
from history.store.sqlite import summaries as sqlite_summaries

revision: str = "0006_conversation_summaries"
down_revision: str | None = "0005_merge_off_the_record_path"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _summaries() -> ModuleType:
    """The dialect's triggers and backfill."""
    return pg_summaries if op.get_context().dialect.name == "postgresql" else sqlite_summaries


def upgrade() -> None:
    op.create_index("ix_turns_session_id_asked_at", "turns", ["session_id", "asked_at"])
    op.drop_index("ix_turns_session_id", table_name="turns")
    op.create_table(
        "conversations",
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("tainted_turns", sa.Integer(), nullable=False),
        sa.Column("first_id", sa.Integer(), nullable=False),
        sa.Column("first_asked_at", sa.DateTime(), nullable=False),
        sa.Column("last_asked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "project", name=op.f("pk_conversations")),
    )
    op.create_index(
        "ix_conversations_last_asked_at",
        "conversations",
        ["last_asked_at", "session_id", "project"],
    )
    op.create_index(
        "ix_conversations_project_last_asked_at",
        "conversations",
        ["project", "last_asked_at", "session_id"],
    )
    op.create_table(
        "conversation_edits",
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "session_id", "project", "path", name=op.f("pk_conversation_edits")
        ),
    )
    op.create_table(
        "projects",
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("conversations", sa.Integer(), nullable=False),
        sa.Column("first_asked_at", sa.DateTime(), nullable=False),
        sa.Column("last_asked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("project", name=op.f("pk_projects")),
    )
    summaries = _summaries()
    for statement in [*summaries.backfill_statements(), *summaries.trigger_statements()]:
        op.execute(statement)


def downgrade() -> None:
    for statement in _summaries().drop_triggers_statements():
        op.execute(statement)
    op.drop_table("projects")
    op.drop_table("conversation_edits")
    op.drop_index("ix_conversations_project_last_asked_at", table_name="conversations")
    op.drop_index("ix_conversations_last_asked_at", table_name="conversations")
    op.drop_table("conversations")
    op.create_index("ix_turns_session_id", "turns", ["session_id"])
    op.drop_index("ix_turns_session_id_asked_at", table_name="turns")

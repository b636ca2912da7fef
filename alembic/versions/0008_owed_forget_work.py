"""Owed forget work: what a forget still has to do, kept in the database, not in a process.

`forget_work` lists the conversations (of one project, or of every project) whose turns a large
forget is deleting in batches: search hides them from the first batch on, and whoever comes
next finishes the deletion after a crash. `owed_scrub` holds at most one row: forgotten text is
out of search but may still be in the file's bytes (the full-text index's old segments, the
WAL) until the scrub finishes. Both dialects get the same two plain tables.

Revision ID: 0008_owed_forget_work
Revises: 0007_word_forms_and_cjk_text
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_owed_forget_work"
down_revision: str | None = "0007_word_forms_and_cjk_text"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "forget_work",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=True),
        sa.Column("owed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forget_work")),
    )
    op.create_table(
        "owed_scrub",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("owed_at", sa.DateTime(), nullable=False),
        sa.Column("rewrite_index", sa.Boolean(), nullable=False),
        sa.Column("rewriting", sa.Boolean(), nullable=False),
        sa.Column("since_xid", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_owed_scrub")),
    )


def downgrade() -> None:
    op.drop_table("owed_scrub")
    op.drop_table("forget_work")

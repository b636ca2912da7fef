"""Keeping less on purpose: retention settings, the cutoffs retention left, and expiry work.

`retention_settings` holds how many days turns are kept, for every project (`project` '') or for
one (a project's own setting wins over the every-project one). `retention_cutoffs` is the
tombstone of an expiry: turns of `project` ('' for every project) asked before `asked_before`
were forgotten, and an import does not bring them back. `forget_work` gains `asked_before`: a
row with it set deletes only the conversation's turns asked before that time (an expiry in
batches, not a forgotten conversation); its index on `session_id` lets counts leave out the
turns a forget cut short still hides. Both dialects get the same plain tables.

Revision ID: 0017_retention
Revises: 0016_turn_work
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_retention"
down_revision: str | None = "0016_turn_work"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "retention_settings",
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("keep_days", sa.Integer(), nullable=False),
        sa.Column("set_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("project", name=op.f("pk_retention_settings")),
    )
    op.create_table(
        "retention_cutoffs",
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("asked_before", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("project", name=op.f("pk_retention_cutoffs")),
    )
    op.add_column("forget_work", sa.Column("asked_before", sa.DateTime(), nullable=True))
    op.create_index(op.f("ix_forget_work_session_id"), "forget_work", ["session_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_forget_work_session_id"), table_name="forget_work")
    if op.get_context().dialect.name == "postgresql":
        op.drop_column("forget_work", "asked_before")
    else:
        # SQLite's own DROP COLUMN (3.35+), as 0016 does.
        op.execute("ALTER TABLE forget_work DROP COLUMN asked_before")
    op.drop_table("retention_cutoffs")
    op.drop_table("retention_settings")

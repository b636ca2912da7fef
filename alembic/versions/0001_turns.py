"""The turns table: one row per finished turn.

Revision ID: 0001_turns
Revises:
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_turns"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "turns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("turn_id", sa.String(), nullable=False),
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("asked_at", sa.DateTime(), nullable=False),
        sa.Column("tainted", sa.Boolean(), nullable=False),
        sa.Column("asked", sa.Text(), nullable=False),
        sa.Column("answered", sa.Text(), nullable=False),
        sa.Column("files", sa.Text(), nullable=False),
        sa.Column("edited", sa.Text(), nullable=False),
        sa.Column("tools", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_turns")),
        sa.UniqueConstraint("turn_id", name=op.f("uq_turns_turn_id")),
    )
    op.create_index("ix_turns_session_id", "turns", ["session_id"])
    op.create_index("ix_turns_project_asked_at", "turns", ["project", "asked_at"])
    op.create_index("ix_turns_asked_at", "turns", ["asked_at"])


def downgrade() -> None:
    op.drop_index("ix_turns_asked_at", table_name="turns")
    op.drop_index("ix_turns_project_asked_at", table_name="turns")
    op.drop_index("ix_turns_session_id", table_name="turns")
    op.drop_table("turns")

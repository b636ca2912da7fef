"""forgotten_sessions: tombstones, so an import does not bring a forgotten conversation back.

Revision ID: 0003_forgotten_sessions
Revises: 0002_turns_fts
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_forgotten_sessions"
down_revision: str | None = "0002_turns_fts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "forgotten_sessions",
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("forgotten_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", name=op.f("pk_forgotten_sessions")),
    )


def downgrade() -> None:
    op.drop_table("forgotten_sessions")

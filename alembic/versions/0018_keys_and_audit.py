"""Members' keys and the audit trail.

`access_keys` holds each member's key as a salted digest of its secret (never the secret), its
rights and the projects it is limited to (a JSON array; NULL: every project), and when it was
revoked. `audit_events` holds what was forgotten, expired, added or revoked, when and by which
key, with how many turns: never a turn's text. Both dialects get the same plain tables.

Revision ID: 0018_keys_and_audit
Revises: 0017_retention
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_keys_and_audit"
down_revision: str | None = "0017_retention"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "access_keys",
        sa.Column("key_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("salt", sa.String(), nullable=False),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("rights", sa.String(), nullable=False),
        sa.Column("projects", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("key_id", name=op.f("pk_access_keys")),
        sa.UniqueConstraint("name", name=op.f("uq_access_keys_name")),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("session_id", sa.String(), nullable=True),
        sa.Column("project", sa.String(), nullable=True),
        sa.Column("turns", sa.Integer(), nullable=True),
        sa.Column("key_name", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
    )
    op.create_index(op.f("ix_audit_events_at"), "audit_events", ["at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_events_at"), table_name="audit_events")
    op.drop_table("audit_events")
    op.drop_table("access_keys")

"""Search by meaning: each embedded turn's vector.

`turn_vectors` holds one row per turn embedded (history/meaning/vectors.py), keyed by the turn's
rowid: the model that made it and its unit vector as int8, one byte a dimension. A turn's
deletion takes its vector in the same statement: a trigger on SQLite (whose foreign keys,
declared as on PostgreSQL, are not enforced here), a cascading foreign key on PostgreSQL. The
table exists whether or not the optional extra that fills it is installed; without it, it stays
empty.

Revision ID: 0021_turn_vectors
Revises: 0018_keys_and_audit
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_turn_vectors"
down_revision: str | None = "0018_keys_and_audit"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQLITE_TRIGGER = (
    "CREATE TRIGGER turns_vectors_ad AFTER DELETE ON turns BEGIN "
    "DELETE FROM turn_vectors WHERE turn_id = old.id; END"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TABLE turn_vectors (turn_id INTEGER NOT NULL, model VARCHAR NOT NULL, "
            "vector BLOB NOT NULL, CONSTRAINT pk_turn_vectors PRIMARY KEY (turn_id), "
            "CONSTRAINT fk_turn_vectors_turn_id_turns FOREIGN KEY(turn_id) REFERENCES turns (id) "
            "ON DELETE CASCADE)"
        )
        op.execute(SQLITE_TRIGGER)
        return
    op.create_table(
        "turn_vectors",
        sa.Column("turn_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("turn_id", name=op.f("pk_turn_vectors")),
        sa.ForeignKeyConstraint(
            ["turn_id"],
            ["turns.id"],
            name=op.f("fk_turn_vectors_turn_id_turns"),
            ondelete="CASCADE",
        ),
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS turns_vectors_ad")
    op.drop_table("turn_vectors")

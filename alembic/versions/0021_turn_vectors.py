"""Search by meaning: each embedded turn's vector.

`turn_vectors` holds one row per turn embedded (history/meaning/vectors.py), keyed by the turn's
rowid: the model that made it and its unit vector as int8, one byte a dimension. A turn's
deletion takes its vector in the same statement: a trigger on SQLite (whose foreign keys,
declared as on PostgreSQL, are not enforced here), a cascading foreign key on PostgreSQL. The
table exists whether or not the optional extra that fills it is installed; without it, it stays
empty.

Revision ID: 0021_turn_vectors
Revises: 0020_counts_without_work
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0021_turn_vectors"
down_revision: str | None = "0020_counts_without_work"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQLITE_TRIGGER = (
    "CREATE TRIGGER turns_vectors_ad AFTER DELETE ON turns BEGIN "
    "DELETE FROM turn_vectors WHERE turn_id = old.id; END"
)
# PostgreSQL's turns are partitioned by project (revision 0019): their key is (id, project), so
# no foreign key can name turns.id alone; a row trigger forgets a turn's vector with it.
POSTGRES_FORGETS = """
CREATE FUNCTION turns_vectors_ad() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM turn_vectors WHERE turn_id = old.id;
    RETURN NULL;
END $$;
CREATE TRIGGER turns_vectors_ad AFTER DELETE ON turns
    FOR EACH ROW EXECUTE FUNCTION turns_vectors_ad();
"""


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.execute(
        "CREATE TABLE turn_vectors (turn_id INTEGER NOT NULL, model VARCHAR NOT NULL, "
        f"vector {'BLOB' if sqlite else 'BYTEA'} NOT NULL, "
        "CONSTRAINT pk_turn_vectors PRIMARY KEY (turn_id))"
    )
    op.execute(SQLITE_TRIGGER if sqlite else POSTGRES_FORGETS)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS turns_vectors_ad")
    else:
        op.execute("DROP TRIGGER IF EXISTS turns_vectors_ad ON turns")
        op.execute("DROP FUNCTION IF EXISTS turns_vectors_ad()")
    op.execute("DROP TABLE turn_vectors")

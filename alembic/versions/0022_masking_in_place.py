"""SQLite: a re-scan masks a turn's words in the full-text index itself.

Two tables beside FTS5's (history/store/sqlite/in_place.py). `turns_fts_shadowed` lists the
turns masked that way: their other words' old entries stay in the index's old segments until
the index is rewritten, so forgetting one owes that rewrite; `in_rewrite` marks the turns a
rewrite under way will have taken out. `turns_fts_by_hand` holds a row only inside the masking
transaction, whose writes to `turns_fts` are its own: `turns_au` does not fire then. PostgreSQL
keeps its index in a column the database computes: it is left as it is.

Revision ID: 0022_masking_in_place
Revises: 0021_turn_vectors
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_masking_in_place"
down_revision: str | None = "0021_turn_vectors"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = (
    "CREATE TABLE turns_fts_shadowed (turn_id INTEGER PRIMARY KEY, "
    "in_rewrite BOOLEAN NOT NULL DEFAULT 0)",
    "CREATE TABLE turns_fts_by_hand (id INTEGER PRIMARY KEY)",
)
_DELETE_OLD = """
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, work, project_tag)
        VALUES ('delete', old.id, recall_index_text(old.asked), recall_index_text(old.answered),
            recall_index_text(old.files), recall_index_text(old.work), old.project_tag);"""
_INSERT_NEW = """
        INSERT INTO turns_fts(rowid, asked, answered, files, work, project_tag)
        VALUES (new.id, recall_index_text(new.asked), recall_index_text(new.answered),
            recall_index_text(new.files), recall_index_text(new.work), new.project_tag);"""
# Written out: a later change elsewhere leaves them as they are.
GATED_TRIGGER = f"""
    CREATE TRIGGER turns_au AFTER UPDATE OF asked, answered, files, work, project ON turns
    WHEN NOT EXISTS (SELECT 1 FROM turns_fts_by_hand) BEGIN{_DELETE_OLD}{_INSERT_NEW}
    END
    """
OLD_TRIGGER = f"""
    CREATE TRIGGER turns_au AFTER UPDATE OF asked, answered, files, work, project ON turns
    BEGIN{_DELETE_OLD}{_INSERT_NEW}
    END
    """
# Without the list, a forget of a turn masked in place would not know to rewrite the index:
# the earlier version owes the rewrite at once instead.
OWE_REWRITE = """
    INSERT INTO owed_scrub (id, owed_at, rewrite_index, rewriting)
    SELECT 1, strftime('%Y-%m-%d %H:%M:%S.000000', 'now'), 1, 0
    WHERE EXISTS (SELECT 1 FROM turns_fts_shadowed)
    ON CONFLICT (id) DO UPDATE SET rewrite_index = 1, rewriting = 0
    """


def _has_full_text() -> bool:
    return op.get_context().as_sql or sa.inspect(op.get_bind()).has_table("turns_fts")


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        return
    for statement in TABLES:
        op.execute(statement)
    if _has_full_text():
        op.execute("DROP TRIGGER turns_au")
        op.execute(GATED_TRIGGER)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        return
    if _has_full_text():
        op.execute("DROP TRIGGER turns_au")
        op.execute(OLD_TRIGGER)
    op.execute(OWE_REWRITE)
    op.execute("DROP TABLE turns_fts_by_hand")
    op.execute("DROP TABLE turns_fts_shadowed")

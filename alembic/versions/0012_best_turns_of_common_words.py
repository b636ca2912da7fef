"""SQLite: the best turns of each common word, beside FTS5 (history/store/sqlite/best_turns.py).

Two tables (`best_turns_lists`, `best_turns`) and two triggers on `turns`: a deleted turn's rows
go with it, and a rewritten one's too, its list's `built_upto` moved back before it. Empty until
the upkeep builds the lists; a search without them ranks as before. PostgreSQL is left as it is.

Revision ID: 0012_best_turns_of_common_words
Revises: 0011_postgres_project_words
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012_best_turns_of_common_words"
down_revision: str | None = "0011_postgres_project_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
# The triggers see a rewrite of the columns indexed at this revision.
CREATE = (
    "CREATE TABLE best_turns_lists (word TEXT PRIMARY KEY, built_upto INTEGER NOT NULL, "
    "average_length REAL NOT NULL, bound REAL NOT NULL, turns INTEGER NOT NULL)",
    "CREATE TABLE best_turns (word TEXT NOT NULL, turn_id INTEGER NOT NULL, "
    "project TEXT NOT NULL, hits REAL NOT NULL, length INTEGER NOT NULL, "
    "PRIMARY KEY (word, turn_id)) WITHOUT ROWID",
    "CREATE INDEX ix_best_turns_turn ON best_turns (turn_id)",
    """
    CREATE TRIGGER best_turns_ad AFTER DELETE ON turns BEGIN
        DELETE FROM best_turns WHERE turn_id = old.id;
    END
    """,
    """
    CREATE TRIGGER best_turns_au AFTER UPDATE OF asked, answered, files, project ON turns BEGIN
        DELETE FROM best_turns WHERE turn_id = old.id;
        UPDATE best_turns_lists SET built_upto = old.id - 1 WHERE built_upto >= old.id;
    END
    """,
)
DROP = (
    "DROP TRIGGER IF EXISTS best_turns_au",
    "DROP TRIGGER IF EXISTS best_turns_ad",
    "DROP TABLE IF EXISTS best_turns",
    "DROP TABLE IF EXISTS best_turns_lists",
)


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in CREATE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in DROP:
            op.execute(statement)

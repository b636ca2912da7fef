"""SQLite: each common word's count of turns, beside FTS5 (history/store/sqlite/word_counts.py).

One table (`word_counts`) and two triggers on `turns` that empty it when a turn is deleted or
rewritten. Empty until the upkeep counts; a search without counts counts with FTS5 as before.
PostgreSQL is left as it is.

Revision ID: 0013_word_counts
Revises: 0012_best_turns_of_common_words
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0013_word_counts"
down_revision: str | None = "0012_best_turns_of_common_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
# The triggers see a rewrite of the columns indexed at this revision.
CREATE = (
    "CREATE TABLE word_counts (word TEXT PRIMARY KEY, holding INTEGER NOT NULL, "
    "turns INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TRIGGER word_counts_ad AFTER DELETE ON turns BEGIN DELETE FROM word_counts; END",
    "CREATE TRIGGER word_counts_au AFTER UPDATE OF asked, answered, files, project ON turns "
    "BEGIN DELETE FROM word_counts; END",
)
DROP = (
    "DROP TRIGGER IF EXISTS word_counts_au",
    "DROP TRIGGER IF EXISTS word_counts_ad",
    "DROP TABLE IF EXISTS word_counts",
)


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in CREATE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in DROP:
            op.execute(statement)

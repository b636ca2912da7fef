"""SQLite: the words' counts kept beside FTS5 are counted without the work column.

A word's count of turns (`word_counts`) now leaves out the turns that hold it in their work
alone, as the ranking does (history/store/sqlite/fts5_rank.c): counts kept by an earlier
version are of the whole row. The revision empties the table; the upkeep counts again, and
until then a search counts as in a file without it. No table changes; the common words' lists
(hits and lengths, no counts) stay. PostgreSQL keeps no such counts: it is left as it is.

Revision ID: 0020_counts_without_work
Revises: 0019_postgres_turns_by_project
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020_counts_without_work"
down_revision: str | None = "0019_postgres_turns_by_project"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out: a later change elsewhere leaves it as it is.
EMPTY = ("DELETE FROM word_counts",)


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in EMPTY:
            op.execute(statement)


def downgrade() -> None:
    # The earlier version's counts are of the whole row: emptied again, it counts its own.
    if op.get_context().dialect.name != "postgresql":
        for statement in EMPTY:
            op.execute(statement)

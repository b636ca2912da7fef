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

from history.store.sqlite import word_counts

revision: str = "0013_word_counts"
down_revision: str | None = "0012_best_turns_of_common_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The columns whose rewrite the triggers see, as they were at this revision.
WATCHED = ("asked", "answered", "files", "project")


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in word_counts.schema_statements(WATCHED):
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in word_counts.drop_statements():
            op.execute(statement)

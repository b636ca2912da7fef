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

from history.store.sqlite import best_turns

revision: str = "0012_best_turns_of_common_words"
down_revision: str | None = "0011_postgres_project_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The columns whose rewrite the triggers see, as they were at this revision.
WATCHED = ("asked", "answered", "files", "project")


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in best_turns.schema_statements(WATCHED):
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in best_turns.drop_statements():
            op.execute(statement)

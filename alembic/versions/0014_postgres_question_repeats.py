"""PostgreSQL: the question's index also holds the words each question repeats.

A turn whose question holds a query word once scores at most 0.766 for it, one that repeats it
up to 1; with the repeated words in the question's GIN index (as `r_<word>`), search ranks those
few turns first and can then leave out, unread, the turns holding the word once that cannot pass
the k-th best score (history/store/postgres/question_index.py). The index is rebuilt over
`recall_question(asked, project)`; ANALYZE gives the planner its statistics. SQLite has nothing
to do here: FTS5's bm25 reads its own index.

Revision ID: 0014_postgres_question_repeats
Revises: 0013_word_counts
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from history.store.postgres import question_index

revision: str = "0014_postgres_question_repeats"
down_revision: str | None = "0013_word_counts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in question_index.create_statements():
            op.execute(statement)
        op.execute("ANALYZE turns")


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in question_index.drop_statements():
            op.execute(statement)
        op.execute("ANALYZE turns")

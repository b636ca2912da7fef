"""PostgreSQL: the question's words indexed apart, and a larger statistics sample of the vector.

A turn holding a query word in its question ranks above every turn holding it only in its file
names or answer (history/store/postgres/search.py), so search looks at those turns first; a GIN
index over the question's words alone finds them without reading the rows of every turn that
holds the word anywhere. The vector's statistics target goes to 1000, so that ANALYZE's list of
common words reaches down to words in ~0.06% of the turns and search counts only rarer words
itself. SQLite has nothing to do here: FTS5's bm25 reads its own index.

Revision ID: 0009_postgres_asked_words
Revises: 0008_owed_forget_work
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from history.store.postgres import schema as pg

revision: str = "0009_postgres_asked_words"
down_revision: str | None = "0008_owed_forget_work"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in pg.asked_index_statements():
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in pg.drop_asked_index_statements():
            op.execute(statement)

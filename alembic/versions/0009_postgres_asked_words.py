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

revision: str = "0009_postgres_asked_words"
down_revision: str | None = "0008_owed_forget_work"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
CREATE = (
    """
    CREATE INDEX ix_turns_asked_words ON turns USING gin ((
        to_tsvector('simple'::regconfig, recall_words(asked))
        || to_tsvector('simple'::regconfig, 'p' || md5(project))
    ))
    """,
    "ALTER TABLE turns ALTER COLUMN search_vector SET STATISTICS 1000",
)
DROP = (
    "DROP INDEX IF EXISTS ix_turns_asked_words",
    "ALTER TABLE turns ALTER COLUMN search_vector SET STATISTICS -1",
)


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in CREATE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in DROP:
            op.execute(statement)

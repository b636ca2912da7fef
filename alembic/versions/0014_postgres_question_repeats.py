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

revision: str = "0014_postgres_question_repeats"
down_revision: str | None = "0013_word_counts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
# `recall_question`: the question's words, `r_<word>` for each word it holds more than once, and
# the project's tag.
CREATE = (
    """
    CREATE OR REPLACE FUNCTION recall_question(asked text, project text) RETURNS tsvector
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
    DECLARE
        v tsvector := to_tsvector('simple'::regconfig, recall_words(asked));
        repeated text[] := '{}';
        u record;
    BEGIN
        FOR u IN SELECT lexeme, positions FROM unnest(v) LOOP
            IF cardinality(u.positions) > 1 THEN
                repeated := repeated || ('r_' || u.lexeme);
            END IF;
        END LOOP;
        RETURN v || array_to_tsvector(repeated)
            || to_tsvector('simple'::regconfig, 'p' || md5(project));
    END $$
    """,
    "DROP INDEX IF EXISTS ix_turns_asked_words",
    "CREATE INDEX ix_turns_asked_words ON turns USING gin ((recall_question(asked, project)))",
)
# Back to revision 0009's index of the question's words and the tag.
DROP = (
    "DROP INDEX IF EXISTS ix_turns_asked_words",
    """
    CREATE INDEX ix_turns_asked_words ON turns USING gin ((
        to_tsvector('simple'::regconfig, recall_words(asked))
        || to_tsvector('simple'::regconfig, 'p' || md5(project))
    ))
    """,
    "DROP FUNCTION IF EXISTS recall_question(text, text)",
)


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in CREATE:
            op.execute(statement)
        op.execute("ANALYZE turns")


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in DROP:
            op.execute(statement)
        op.execute("ANALYZE turns")

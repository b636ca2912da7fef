"""PostgreSQL: a GIN index of each turn's words within its project.

A project-scoped search found a project's turns holding a word by walking the word's posting
list beside the project tag's (50,000-130,000 entries at 1M turns); with each word kept as
`<md5(project)>w<word>` (and each word of the question as `<md5(project)>q<word>`), a lexeme's
list is the project's turns holding it and nothing else is walked
(history/store/postgres/project_index.py). ANALYZE gives the planner the index's statistics.
SQLite has nothing to do here: FTS5 ranks a project's turns from its own index.

Revision ID: 0015_postgres_project_words
Revises: 0014_postgres_question_repeats
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0015_postgres_project_words"
down_revision: str | None = "0014_postgres_question_repeats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
# `recall_project_words`: each lexeme of the vector as `<md5(project)>w<word>`, and each of
# the question's (weight A) as `<md5(project)>q<word>`.
CREATE = (
    """
    CREATE OR REPLACE FUNCTION recall_project_words(vector tsvector, project text)
    RETURNS tsvector LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN array_to_tsvector(string_to_array(md5(project) || 'w'
            || array_to_string(tsvector_to_array(vector), ' ' || md5(project) || 'w'), ' '))
        || array_to_tsvector(string_to_array(md5(project) || 'q'
            || array_to_string(tsvector_to_array(ts_filter(vector, '{a}')),
                ' ' || md5(project) || 'q'), ' '))
    """,
    "CREATE INDEX IF NOT EXISTS ix_turns_project_words ON turns "
    "USING gin ((recall_project_words(search_vector, project)))",
)
DROP = (
    "DROP INDEX IF EXISTS ix_turns_project_words",
    "DROP FUNCTION IF EXISTS recall_project_words(tsvector, text)",
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

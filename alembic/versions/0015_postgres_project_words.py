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

from history.store.postgres import project_index

revision: str = "0015_postgres_project_words"
down_revision: str | None = "0014_postgres_question_repeats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in project_index.create_statements():
            op.execute(statement)
        op.execute("ANALYZE turns")


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in project_index.drop_statements():
            op.execute(statement)

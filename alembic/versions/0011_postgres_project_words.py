"""PostgreSQL: the words common in each project, sampled, for planning project-scoped searches.

A project-scoped search estimated a word's turns in the project as its turns everywhere times
the project's share; a project's own identifiers are in that project alone, in thousands of its
turns, so that estimate fell short 24 times at 1M turns and one part ranked 13,200 rows.
`project_words` holds, per project, the words common there with the count a sample of the
table suggests (history/store/postgres/project_words.py); upkeep refreshes it with the
statistics. SQLite has nothing to do here: FTS5's own index gives its counts.

Revision ID: 0011_postgres_project_words
Revises: 0010_summaries_after_bulk_writes
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from history.store.postgres import project_words

revision: str = "0011_postgres_project_words"
down_revision: str | None = "0010_summaries_after_bulk_writes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in project_words.create_statements():
            op.execute(statement)
        if not op.get_context().as_sql:  # offline SQL: upkeep samples once it runs
            project_words.refill(op.get_bind())


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in project_words.drop_statements():
            op.execute(statement)

"""The project in the full-text index: turns.project_tag (computed) as a fourth FTS5 column.

A project-scoped search then asks FTS5 for `(terms) AND project_tag : "<tag>"`, intersecting
posting lists, instead of looking up the row of every match to compare its project. The FTS table
and its triggers are recreated and the index rebuilt from the rows already there. On PostgreSQL
the tag ('p' || md5(project), stored) joins `search_vector` with weight D, which ranks nothing.

Revision ID: 0004_project_in_full_text
Revises: 0003_forgotten_sessions
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from history.store.postgres import schema as pg
from history.store.sqlite import fts

revision: str = "0004_project_in_full_text"
down_revision: str | None = "0003_forgotten_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENIZE = "unicode61 remove_diacritics 2"
TEXT = ("asked", "answered", "files")
TAG_EXPRESSION = "'p' || lower(hex(project))"


def _has_fts() -> bool:
    return op.get_context().as_sql or fts.fts_exists(op.get_bind())


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def upgrade() -> None:
    if _postgres():
        op.add_column(
            "turns",
            sa.Column("project_tag", sa.String(), sa.Computed(pg.TAG_EXPRESSION, persisted=True)),
        )
        for statement in [*pg.drop_statements(), *pg.create_statements(pg.WITH_TAG)]:
            op.execute(statement)
        return
    op.add_column(
        "turns",
        sa.Column("project_tag", sa.String(), sa.Computed(TAG_EXPRESSION, persisted=False)),
    )
    if not _has_fts():
        return
    for statement in fts.drop_fts_statements():
        op.execute(statement)
    for statement in fts.create_fts_statements(
        TOKENIZE, (*TEXT, "project_tag"), (*TEXT, "project"), through=None
    ):
        op.execute(statement)


def downgrade() -> None:
    if _postgres():
        for statement in pg.drop_statements():
            op.execute(statement)
        op.drop_column("turns", "project_tag")
        for statement in pg.create_statements(pg.TEXT_WEIGHTS):
            op.execute(statement)
        return
    had_fts = _has_fts()
    for statement in fts.drop_fts_statements():
        op.execute(statement)
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("project_tag")
    if had_fts:
        for statement in fts.create_fts_statements(TOKENIZE, TEXT, TEXT, through=None):
            op.execute(statement)

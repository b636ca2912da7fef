"""turns_fts: the external-content FTS5 index over asked, answered and files, with its triggers.

Created only where this SQLite has FTS5; elsewhere the repository answers with LIKE. On
PostgreSQL: the weighted `search_vector` column the database computes, under a GIN index.

Revision ID: 0002_turns_fts
Revises: 0001_turns
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from history.store.postgres import schema as pg
from history.store.sqlite import fts

revision: str = "0002_turns_fts"
down_revision: str | None = "0001_turns"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENIZE = "unicode61 remove_diacritics 2"
COLUMNS = ("asked", "answered", "files")


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in pg.create_statements(pg.TEXT_WEIGHTS):
            op.execute(statement)
        return
    # Offline (`--sql`) there is no database to probe: print the DDL for an FTS5 build.
    if not op.get_context().as_sql and not fts.fts5_available(op.get_bind()):
        return
    for statement in fts.create_fts_statements(TOKENIZE, COLUMNS, COLUMNS, through=None):
        op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in pg.drop_statements():
            op.execute(statement)
        return
    for statement in fts.drop_fts_statements():
        op.execute(statement)

"""A turn's work as a field of its own: `turns.work`, searchable, weighted below the answer.

`work` (TEXT NOT NULL DEFAULT '') holds what the turn did, one entry a line (the commands it
ran, the first lines of its failures, each edit's file and added lines:
history/importers/whole.py); the rows already there get ''.

SQLite: `turns_fts` gains the column `work`, before `project_tag`, read through
`recall_index_text` like the other text columns. The FTS table, its view and triggers are
recreated and the index filled again from the rows, in steps, with a progress bar on a terminal
(as 0007 does), and 0005's merge settings set again. The best turns' lists and the word counts
(0012, 0013) are emptied, so the upkeep builds them again with the new column's weight, and
their triggers watch `work` too.

PostgreSQL: `search_vector` holds the work's words at weight D, the lowest (the project tag's,
which only narrows). A generated column's expression cannot be changed in place: the vector is
dropped and added again in the same ALTER TABLE that adds `work`, one rewrite of the table, and
its GIN indexes built once after it.

Every statement here is this revision's own (columns, tokenizer, weights), so a later change to
today's defaults leaves it meaning what it meant.

Revision ID: 0016_turn_work
Revises: 0015_postgres_project_words
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Connection, text

from history.store.migrations import terminal_progress
from history.store.postgres import project_index
from history.store.postgres import schema as pg
from history.store.sqlite import best_turns, fts, word_counts

revision: str = "0016_turn_work"
down_revision: str | None = "0015_postgres_project_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENIZE = "porter unicode61 remove_diacritics 2"
THROUGH = "recall_index_text"
COLUMNS = ("asked", "answered", "files", "work", "project_tag")
WATCHED = ("asked", "answered", "files", "work", "project")
OLD_COLUMNS = ("asked", "answered", "files", "project_tag")
OLD_WATCHED = ("asked", "answered", "files", "project")
# As 0005 set them: merging is left to the index's upkeep.
AUTOMERGE, CRISISMERGE = 0, 256

# PostgreSQL: the vector's parts and their weights, at this revision and at 0015.
TAG = "'p' || md5(project)"
VECTOR = (("asked", "A"), ("files", "B"), ("answered", "C"), ("work", "D"), (TAG, "D"))
OLD_VECTOR = (("asked", "A"), ("files", "B"), ("answered", "C"), (TAG, "D"))
VECTOR_INDEX = "ix_turns_search_vector"
VECTOR_STATISTICS = 1000
PENDING_LIST_KB = 4096


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def _has_fts() -> bool:
    return op.get_context().as_sql or fts.fts_exists(op.get_bind())


def upgrade() -> None:
    if _postgres():
        _vector(VECTOR, add_work=True)
        return
    had_fts = _has_fts()
    for statement in fts.drop_fts_statements():
        op.execute(statement)
    op.add_column("turns", sa.Column("work", sa.Text(), nullable=False, server_default=""))
    _lists(WATCHED)
    if had_fts:
        _full_text(COLUMNS, WATCHED)


def downgrade() -> None:
    if _postgres():
        _vector(OLD_VECTOR, add_work=False)
        return
    had_fts = _has_fts()
    for statement in fts.drop_fts_statements():
        op.execute(statement)
    for statement in [*best_turns.drop_statements(), *word_counts.drop_statements()]:
        op.execute(statement)
    # SQLite's own DROP COLUMN (3.35+): a batch's copy of the table would lose its triggers.
    op.execute("ALTER TABLE turns DROP COLUMN work")
    _lists(OLD_WATCHED)
    if had_fts:
        _full_text(OLD_COLUMNS, OLD_WATCHED)


def _lists(watched: Sequence[str]) -> None:
    """The best turns' lists and the word counts, empty (the upkeep builds them again), their
    triggers watching `watched`."""
    for statement in [*best_turns.drop_statements(), *word_counts.drop_statements()]:
        op.execute(statement)
    for statement in [
        *best_turns.schema_statements(watched),
        *word_counts.schema_statements(watched),
    ]:
        op.execute(statement)


def _full_text(columns: Sequence[str], watched: Sequence[str]) -> None:
    offline = op.get_context().as_sql
    for statement in fts.create_fts_statements(
        TOKENIZE, columns, watched, THROUGH, rebuild=offline
    ):
        op.execute(statement)
    if not offline:
        _fill(op.get_bind(), columns)
    op.execute(fts.config_statement("automerge", AUTOMERGE))
    op.execute(fts.config_statement("crisismerge", CRISISMERGE))


def _fill(conn: Connection, columns: Sequence[str]) -> None:
    low, high = conn.exec_driver_sql("SELECT min(id), max(id) FROM turns").one()
    if low is None:
        return
    with terminal_progress("Rebuilding the full-text index", high - low + 1) as advance:
        for after in range(low - 1, high, fts.FILL_ROWS):
            upto = min(after + fts.FILL_ROWS, high)
            conn.execute(text(fts.fill_statement(columns)), {"after": after, "upto": upto})
            advance(upto - after)


def _vector(parts: Sequence[tuple[str, str]], add_work: bool) -> None:
    """`search_vector` made again from `parts`, with `work` added (or dropped) in the same
    rewrite of the table; then its GIN index, its settings and the project words' index (which
    is built on the vector), and the planner's statistics."""
    work = "ADD COLUMN work text NOT NULL DEFAULT ''" if add_work else "DROP COLUMN IF EXISTS work"
    column = pg.VECTOR_COLUMN
    for statement in [
        *project_index.drop_statements(),
        f"DROP INDEX IF EXISTS {VECTOR_INDEX}",
        f"ALTER TABLE turns DROP COLUMN {column}, {work}",
        f"ALTER TABLE turns ADD COLUMN {column} tsvector "
        f"GENERATED ALWAYS AS ({pg.vector_expression(parts)}) STORED, "
        f"ALTER COLUMN {column} SET STORAGE MAIN, "
        f"ALTER COLUMN {column} SET STATISTICS {VECTOR_STATISTICS}",
        f"CREATE INDEX {VECTOR_INDEX} ON turns USING gin ({column})",
        f"ALTER INDEX {VECTOR_INDEX} SET (fastupdate = on, gin_pending_list_limit = "
        f"{PENDING_LIST_KB})",
        *project_index.create_statements(),
    ]:
        op.execute(statement)
    if not op.get_context().as_sql:
        op.execute("ANALYZE turns")

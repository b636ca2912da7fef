"""Word forms and CJK text in the full-text index: Porter stems, CJK runs as character pairs.

The FTS table is recreated with the `porter unicode61 remove_diacritics 2` tokenizer, over the
view `turns_indexed`, whose text columns pass through `recall_index_text` (each run of Chinese,
Japanese or Korean characters written as its overlapping pairs), and the index is rebuilt from
the rows already there, in steps, with a progress bar on a terminal. FTS5's own options go with
the old table, so 0005's merge settings are set again.

Revision ID: 0007_word_forms_and_cjk_text
Revises: 0006_conversation_summaries
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op
from sqlalchemy import Connection, text

from history.store.migrations import terminal_progress
from history.store.sqlite import fts

revision: str = "0007_word_forms_and_cjk_text"
down_revision: str | None = "0006_conversation_summaries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENIZE = "porter unicode61 remove_diacritics 2"
OLD_TOKENIZE = "unicode61 remove_diacritics 2"
COLUMNS = ("asked", "answered", "files", "project_tag")
WATCHED = ("asked", "answered", "files", "project")
# As 0005 set them: merging is left to the index's upkeep.
AUTOMERGE, CRISISMERGE = 0, 256


def _has_fts() -> bool:
    # PostgreSQL's full-text column keeps whole words for now: this revision changes nothing
    # there (README: Teams, what differs).
    if op.get_context().dialect.name == "postgresql":
        return False
    return op.get_context().as_sql or fts.fts_exists(op.get_bind())


def upgrade() -> None:
    if not _has_fts():
        return
    offline = op.get_context().as_sql
    for statement in fts.drop_fts_statements():
        op.execute(statement)
    # FTS5's default automerge keeps the segments few while the index is filled in steps.
    for statement in fts.create_fts_statements(
        TOKENIZE, COLUMNS, WATCHED, fts.INDEX_TEXT_FUNCTION, rebuild=offline
    ):
        op.execute(statement)
    if not offline:
        _fill(op.get_bind())
    _merge_settings()


def _fill(conn: Connection) -> None:
    low, high = conn.exec_driver_sql("SELECT min(id), max(id) FROM turns").one()
    if low is None:
        return
    with terminal_progress("Rebuilding the full-text index", high - low + 1) as advance:
        for after in range(low - 1, high, fts.FILL_ROWS):
            upto = min(after + fts.FILL_ROWS, high)
            conn.execute(text(fts.fill_statement(COLUMNS)), {"after": after, "upto": upto})
            advance(upto - after)


def _merge_settings() -> None:
    op.execute(fts.config_statement("automerge", AUTOMERGE))
    op.execute(fts.config_statement("crisismerge", CRISISMERGE))


def downgrade() -> None:
    if not _has_fts():
        return
    for statement in fts.drop_fts_statements():
        op.execute(statement)
    for statement in fts.create_fts_statements(OLD_TOKENIZE, COLUMNS, WATCHED, through=None):
        op.execute(statement)
    _merge_settings()

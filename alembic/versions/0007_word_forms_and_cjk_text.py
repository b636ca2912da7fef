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

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Connection, text

from history.store.migrations import terminal_progress

revision: str = "0007_word_forms_and_cjk_text"
down_revision: str | None = "0006_conversation_summaries"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As 0005 set them: merging is left to the index's upkeep.
AUTOMERGE, CRISISMERGE = 0, 256
# Rows indexed per statement while the index is filled (each one a step of its progress).
FILL_ROWS = 20_000

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
# The text columns reach FTS5 through `recall_index_text` (registered on every connection),
# in the triggers and in the view FTS5 reads its content from.
CREATE_FTS = (
    """
    CREATE VIEW turns_indexed AS SELECT id, recall_index_text(asked) AS asked,
        recall_index_text(answered) AS answered, recall_index_text(files) AS files, project_tag
    FROM turns
    """,
    "CREATE VIRTUAL TABLE turns_fts USING fts5(asked, answered, files, project_tag, "
    "content='turns_indexed', content_rowid='id', "
    "tokenize='porter unicode61 remove_diacritics 2')",
    """
    CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
        INSERT INTO turns_fts(rowid, asked, answered, files, project_tag)
        VALUES (new.id, recall_index_text(new.asked), recall_index_text(new.answered),
            recall_index_text(new.files), new.project_tag);
    END
    """,
    """
    CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, project_tag)
        VALUES ('delete', old.id, recall_index_text(old.asked), recall_index_text(old.answered),
            recall_index_text(old.files), old.project_tag);
    END
    """,
    """
    CREATE TRIGGER turns_au AFTER UPDATE OF asked, answered, files, project ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, project_tag)
        VALUES ('delete', old.id, recall_index_text(old.asked), recall_index_text(old.answered),
            recall_index_text(old.files), old.project_tag);
        INSERT INTO turns_fts(rowid, asked, answered, files, project_tag)
        VALUES (new.id, recall_index_text(new.asked), recall_index_text(new.answered),
            recall_index_text(new.files), new.project_tag);
    END
    """,
)
# Offline (`--sql`): the whole index at once.
REBUILD = "INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')"
# The rows with ids in (:after, :upto].
FILL = (
    "INSERT INTO turns_fts(rowid, asked, answered, files, project_tag) "
    "SELECT id, asked, answered, files, project_tag FROM turns_indexed "
    "WHERE id > :after AND id <= :upto"
)
# As revision 0004 made it.
OLD_CREATE_FTS = (
    "CREATE VIRTUAL TABLE turns_fts USING fts5(asked, answered, files, project_tag, "
    "content='turns', content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    """
    CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
        INSERT INTO turns_fts(rowid, asked, answered, files, project_tag)
        VALUES (new.id, new.asked, new.answered, new.files, new.project_tag);
    END
    """,
    """
    CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, project_tag)
        VALUES ('delete', old.id, old.asked, old.answered, old.files, old.project_tag);
    END
    """,
    """
    CREATE TRIGGER turns_au AFTER UPDATE OF asked, answered, files, project ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, project_tag)
        VALUES ('delete', old.id, old.asked, old.answered, old.files, old.project_tag);
        INSERT INTO turns_fts(rowid, asked, answered, files, project_tag)
        VALUES (new.id, new.asked, new.answered, new.files, new.project_tag);
    END
    """,
    "INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')",
)
DROP_FTS = (
    "DROP TRIGGER IF EXISTS turns_ai",
    "DROP TRIGGER IF EXISTS turns_ad",
    "DROP TRIGGER IF EXISTS turns_au",
    "DROP TABLE IF EXISTS turns_fts",
    "DROP VIEW IF EXISTS turns_indexed",
)


def _has_fts() -> bool:
    # PostgreSQL's full-text column keeps whole words for now: this revision changes nothing
    # there (README: Teams, what differs).
    if op.get_context().dialect.name == "postgresql":
        return False
    return op.get_context().as_sql or sa.inspect(op.get_bind()).has_table("turns_fts")


def upgrade() -> None:
    if not _has_fts():
        return
    offline = op.get_context().as_sql
    # FTS5's default automerge keeps the segments few while the index is filled in steps.
    for statement in [*DROP_FTS, *CREATE_FTS, *([REBUILD] if offline else [])]:
        op.execute(statement)
    if not offline:
        _fill(op.get_bind())
    _merge_settings()


def _fill(conn: Connection) -> None:
    low, high = conn.exec_driver_sql("SELECT min(id), max(id) FROM turns").one()
    if low is None:
        return
    with terminal_progress("Rebuilding the full-text index", high - low + 1) as advance:
        for after in range(low - 1, high, FILL_ROWS):
            upto = min(after + FILL_ROWS, high)
            conn.execute(text(FILL), {"after": after, "upto": upto})
            advance(upto - after)


def _merge_settings() -> None:
    for option, value in (("automerge", AUTOMERGE), ("crisismerge", CRISISMERGE)):
        op.execute(f"INSERT INTO turns_fts(turns_fts, rank) VALUES ('{option}', {value})")


def downgrade() -> None:
    if not _has_fts():
        return
    for statement in [*DROP_FTS, *OLD_CREATE_FTS]:
        op.execute(statement)
    _merge_settings()

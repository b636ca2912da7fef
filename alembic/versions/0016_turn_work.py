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

revision: str = "0016_turn_work"
down_revision: str | None = "0015_postgres_project_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As 0005 set them: merging is left to the index's upkeep.
AUTOMERGE, CRISISMERGE = 0, 256
# Rows indexed per statement while the index is filled (each one a step of its progress).
FILL_ROWS = 20_000

# SQLite: the full-text index with the work, and (going down) as revision 0007 made it.
CREATE_FTS = (
    """
    CREATE VIEW turns_indexed AS SELECT id, recall_index_text(asked) AS asked,
        recall_index_text(answered) AS answered, recall_index_text(files) AS files,
        recall_index_text(work) AS work, project_tag
    FROM turns
    """,
    "CREATE VIRTUAL TABLE turns_fts USING fts5(asked, answered, files, work, project_tag, "
    "content='turns_indexed', content_rowid='id', "
    "tokenize='porter unicode61 remove_diacritics 2')",
    """
    CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
        INSERT INTO turns_fts(rowid, asked, answered, files, work, project_tag)
        VALUES (new.id, recall_index_text(new.asked), recall_index_text(new.answered),
            recall_index_text(new.files), recall_index_text(new.work), new.project_tag);
    END
    """,
    """
    CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, work, project_tag)
        VALUES ('delete', old.id, recall_index_text(old.asked), recall_index_text(old.answered),
            recall_index_text(old.files), recall_index_text(old.work), old.project_tag);
    END
    """,
    """
    CREATE TRIGGER turns_au AFTER UPDATE OF asked, answered, files, work, project ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, work, project_tag)
        VALUES ('delete', old.id, recall_index_text(old.asked), recall_index_text(old.answered),
            recall_index_text(old.files), recall_index_text(old.work), old.project_tag);
        INSERT INTO turns_fts(rowid, asked, answered, files, work, project_tag)
        VALUES (new.id, recall_index_text(new.asked), recall_index_text(new.answered),
            recall_index_text(new.files), recall_index_text(new.work), new.project_tag);
    END
    """,
)
OLD_CREATE_FTS = (
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
    "INSERT INTO turns_fts(rowid, asked, answered, files, work, project_tag) "
    "SELECT id, asked, answered, files, work, project_tag FROM turns_indexed "
    "WHERE id > :after AND id <= :upto"
)
OLD_FILL = (
    "INSERT INTO turns_fts(rowid, asked, answered, files, project_tag) "
    "SELECT id, asked, answered, files, project_tag FROM turns_indexed "
    "WHERE id > :after AND id <= :upto"
)
DROP_FTS = (
    "DROP TRIGGER IF EXISTS turns_ai",
    "DROP TRIGGER IF EXISTS turns_ad",
    "DROP TRIGGER IF EXISTS turns_au",
    "DROP TABLE IF EXISTS turns_fts",
    "DROP VIEW IF EXISTS turns_indexed",
)


def _lists(watched: str) -> tuple[str, ...]:
    """The best turns' lists and the word counts (0012, 0013), empty, their triggers watching
    the columns `watched`."""
    return (
        "CREATE TABLE best_turns_lists (word TEXT PRIMARY KEY, built_upto INTEGER NOT NULL, "
        "average_length REAL NOT NULL, bound REAL NOT NULL, turns INTEGER NOT NULL)",
        "CREATE TABLE best_turns (word TEXT NOT NULL, turn_id INTEGER NOT NULL, "
        "project TEXT NOT NULL, hits REAL NOT NULL, length INTEGER NOT NULL, "
        "PRIMARY KEY (word, turn_id)) WITHOUT ROWID",
        "CREATE INDEX ix_best_turns_turn ON best_turns (turn_id)",
        """
        CREATE TRIGGER best_turns_ad AFTER DELETE ON turns BEGIN
            DELETE FROM best_turns WHERE turn_id = old.id;
        END
        """,
        f"""
        CREATE TRIGGER best_turns_au AFTER UPDATE OF {watched} ON turns BEGIN
            DELETE FROM best_turns WHERE turn_id = old.id;
            UPDATE best_turns_lists SET built_upto = old.id - 1 WHERE built_upto >= old.id;
        END
        """,
        "CREATE TABLE word_counts (word TEXT PRIMARY KEY, holding INTEGER NOT NULL, "
        "turns INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE TRIGGER word_counts_ad AFTER DELETE ON turns BEGIN DELETE FROM word_counts; END",
        f"CREATE TRIGGER word_counts_au AFTER UPDATE OF {watched} ON turns "
        "BEGIN DELETE FROM word_counts; END",
    )


CREATE_LISTS = _lists("asked, answered, files, work, project")
OLD_CREATE_LISTS = _lists("asked, answered, files, project")
DROP_LISTS = (
    "DROP TRIGGER IF EXISTS best_turns_au",
    "DROP TRIGGER IF EXISTS best_turns_ad",
    "DROP TABLE IF EXISTS best_turns",
    "DROP TABLE IF EXISTS best_turns_lists",
    "DROP TRIGGER IF EXISTS word_counts_au",
    "DROP TRIGGER IF EXISTS word_counts_ad",
    "DROP TABLE IF EXISTS word_counts",
)

# PostgreSQL: the vector's parts and their weights, at this revision and at 0015.
VECTOR = """
    setweight(to_tsvector('simple'::regconfig, recall_words(asked)), 'A')
    || setweight(to_tsvector('simple'::regconfig, recall_words(files)), 'B')
    || setweight(to_tsvector('simple'::regconfig, recall_words(answered)), 'C')
    || setweight(to_tsvector('simple'::regconfig, recall_words(work)), 'D')
    || setweight(to_tsvector('simple'::regconfig, 'p' || md5(project)), 'D')
"""
OLD_VECTOR = """
    setweight(to_tsvector('simple'::regconfig, recall_words(asked)), 'A')
    || setweight(to_tsvector('simple'::regconfig, recall_words(files)), 'B')
    || setweight(to_tsvector('simple'::regconfig, recall_words(answered)), 'C')
    || setweight(to_tsvector('simple'::regconfig, 'p' || md5(project)), 'D')
"""
VECTOR_STATISTICS = 1000
PENDING_LIST_KB = 4096
# Revision 0015's index of each turn's words within its project, built on the vector.
CREATE_PROJECT_WORDS = (
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
DROP_PROJECT_WORDS = (
    "DROP INDEX IF EXISTS ix_turns_project_words",
    "DROP FUNCTION IF EXISTS recall_project_words(tsvector, text)",
)


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def _has_fts() -> bool:
    return op.get_context().as_sql or sa.inspect(op.get_bind()).has_table("turns_fts")


def _run(statements: Sequence[str]) -> None:
    for statement in statements:
        op.execute(statement)


def upgrade() -> None:
    if _postgres():
        _vector(VECTOR, add_work=True)
        return
    had_fts = _has_fts()
    _run(DROP_FTS)
    op.add_column("turns", sa.Column("work", sa.Text(), nullable=False, server_default=""))
    # The lists and counts go empty: the upkeep builds them again with the new column's weight.
    _run([*DROP_LISTS, *CREATE_LISTS])
    if had_fts:
        _full_text(CREATE_FTS, FILL)


def downgrade() -> None:
    if _postgres():
        _vector(OLD_VECTOR, add_work=False)
        return
    had_fts = _has_fts()
    _run([*DROP_FTS, *DROP_LISTS])
    # SQLite's own DROP COLUMN (3.35+): a batch's copy of the table would lose its triggers.
    op.execute("ALTER TABLE turns DROP COLUMN work")
    _run(OLD_CREATE_LISTS)
    if had_fts:
        _full_text(OLD_CREATE_FTS, OLD_FILL)


def _full_text(create: Sequence[str], fill: str) -> None:
    offline = op.get_context().as_sql
    _run([*create, *([REBUILD] if offline else [])])
    if not offline:
        _fill(op.get_bind(), fill)
    for option, value in (("automerge", AUTOMERGE), ("crisismerge", CRISISMERGE)):
        op.execute(f"INSERT INTO turns_fts(turns_fts, rank) VALUES ('{option}', {value})")


def _fill(conn: Connection, fill: str) -> None:
    low, high = conn.exec_driver_sql("SELECT min(id), max(id) FROM turns").one()
    if low is None:
        return
    with terminal_progress("Rebuilding the full-text index", high - low + 1) as advance:
        for after in range(low - 1, high, FILL_ROWS):
            upto = min(after + FILL_ROWS, high)
            conn.execute(text(fill), {"after": after, "upto": upto})
            advance(upto - after)


def _vector(vector: str, add_work: bool) -> None:
    """`search_vector` made again as `vector`, with `work` added (or dropped) in the same
    rewrite of the table; then its GIN index, its settings and the project words' index (which
    is built on the vector), and the planner's statistics."""
    work = "ADD COLUMN work text NOT NULL DEFAULT ''" if add_work else "DROP COLUMN IF EXISTS work"
    _run(
        [
            *DROP_PROJECT_WORDS,
            "DROP INDEX IF EXISTS ix_turns_search_vector",
            f"ALTER TABLE turns DROP COLUMN search_vector, {work}",
            "ALTER TABLE turns ADD COLUMN search_vector tsvector "
            f"GENERATED ALWAYS AS ({vector}) STORED, "
            "ALTER COLUMN search_vector SET STORAGE MAIN, "
            f"ALTER COLUMN search_vector SET STATISTICS {VECTOR_STATISTICS}",
            "CREATE INDEX ix_turns_search_vector ON turns USING gin (search_vector)",
            "ALTER INDEX ix_turns_search_vector "
            f"SET (fastupdate = on, gin_pending_list_limit = {PENDING_LIST_KB})",
            *CREATE_PROJECT_WORDS,
        ]
    )
    if not op.get_context().as_sql:
        op.execute("ANALYZE turns")

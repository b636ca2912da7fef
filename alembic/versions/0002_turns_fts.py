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

from history.store.sqlite import fts

revision: str = "0002_turns_fts"
down_revision: str | None = "0001_turns"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
CREATE_FTS = (
    "CREATE VIRTUAL TABLE turns_fts USING fts5(asked, answered, files, content='turns', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    """
    CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
        INSERT INTO turns_fts(rowid, asked, answered, files)
        VALUES (new.id, new.asked, new.answered, new.files);
    END
    """,
    """
    CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files)
        VALUES ('delete', old.id, old.asked, old.answered, old.files);
    END
    """,
    """
    CREATE TRIGGER turns_au AFTER UPDATE OF asked, answered, files ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files)
        VALUES ('delete', old.id, old.asked, old.answered, old.files);
        INSERT INTO turns_fts(rowid, asked, answered, files)
        VALUES (new.id, new.asked, new.answered, new.files);
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
# PostgreSQL: the words of a text as history.query.words separates them (lowercase, NFKD with
# the combining marks dropped, joining punctuation a space), and the vector of the question (A),
# the file names (B) and the answer (C).
CREATE_VECTOR = (
    r"""
    CREATE OR REPLACE FUNCTION recall_words(body text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE
        WHEN octet_length(body) = char_length(body) THEN
            replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
                lower(body), '+', ' '), '-', ' '), '.', ' '), '/', ' '), '~', ' '), '<', ' '),
                '>', ' '), '&', ' '), '@', ' '), ':', ' ')
        ELSE regexp_replace(
            regexp_replace(
                normalize(lower(body), NFKD),
                E'[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g'
            ),
            '[^[:alnum:]]+', ' ', 'g'
        )
    END
    """,
    """
    ALTER TABLE turns
        ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('simple'::regconfig, recall_words(asked)), 'A')
            || setweight(to_tsvector('simple'::regconfig, recall_words(files)), 'B')
            || setweight(to_tsvector('simple'::regconfig, recall_words(answered)), 'C')
        ) STORED,
        ALTER COLUMN search_vector SET STORAGE MAIN
    """,
    "CREATE INDEX ix_turns_search_vector ON turns USING gin (search_vector)",
)
DROP_VECTOR = (
    "DROP INDEX IF EXISTS ix_turns_search_vector",
    "ALTER TABLE turns DROP COLUMN IF EXISTS search_vector",
    "DROP FUNCTION IF EXISTS recall_words(text)",
)


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in CREATE_VECTOR:
            op.execute(statement)
        return
    # Offline (`--sql`) there is no database to probe: print the DDL for an FTS5 build.
    if not op.get_context().as_sql and not fts.fts5_available(op.get_bind()):
        return
    for statement in CREATE_FTS:
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP_VECTOR if op.get_context().dialect.name == "postgresql" else DROP_FTS:
        op.execute(statement)

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

revision: str = "0004_project_in_full_text"
down_revision: str | None = "0003_forgotten_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TAG_EXPRESSION = "'p' || lower(hex(project))"
PG_TAG_EXPRESSION = "'p' || md5(project)"

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
CREATE_FTS = (
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
    # project_tag cannot be named in UPDATE OF (it is computed): a change of project reindexes.
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
# As revision 0002 made it.
OLD_CREATE_FTS = (
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

# PostgreSQL: revision 0002's word function again, and the vector with the tag at weight D (or,
# going down, without it).
WORDS_FUNCTION = r"""
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
    """
CREATE_VECTOR = (
    WORDS_FUNCTION,
    """
    ALTER TABLE turns
        ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('simple'::regconfig, recall_words(asked)), 'A')
            || setweight(to_tsvector('simple'::regconfig, recall_words(files)), 'B')
            || setweight(to_tsvector('simple'::regconfig, recall_words(answered)), 'C')
            || setweight(to_tsvector('simple'::regconfig, 'p' || md5(project)), 'D')
        ) STORED,
        ALTER COLUMN search_vector SET STORAGE MAIN
    """,
    "CREATE INDEX ix_turns_search_vector ON turns USING gin (search_vector)",
)
OLD_CREATE_VECTOR = (
    WORDS_FUNCTION,
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


def _has_fts() -> bool:
    return op.get_context().as_sql or sa.inspect(op.get_bind()).has_table("turns_fts")


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def _run(statements: Sequence[str]) -> None:
    for statement in statements:
        op.execute(statement)


def upgrade() -> None:
    if _postgres():
        op.add_column(
            "turns",
            sa.Column("project_tag", sa.String(), sa.Computed(PG_TAG_EXPRESSION, persisted=True)),
        )
        _run([*DROP_VECTOR, *CREATE_VECTOR])
        return
    op.add_column(
        "turns",
        sa.Column("project_tag", sa.String(), sa.Computed(TAG_EXPRESSION, persisted=False)),
    )
    if _has_fts():
        _run([*DROP_FTS, *CREATE_FTS])


def downgrade() -> None:
    if _postgres():
        _run(DROP_VECTOR)
        op.drop_column("turns", "project_tag")
        _run(OLD_CREATE_VECTOR)
        return
    had_fts = _has_fts()
    _run(DROP_FTS)
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("project_tag")
    if had_fts:
        _run(OLD_CREATE_FTS)

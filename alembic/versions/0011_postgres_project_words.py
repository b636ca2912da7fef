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
from sqlalchemy import Connection, text

revision: str = "0011_postgres_project_words"
down_revision: str | None = "0010_summaries_after_bulk_writes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL and the first sample as this revision runs them, written out: a later change elsewhere
# leaves them as they are.
CREATE = (
    "CREATE TABLE project_words (project text NOT NULL, word_hash integer NOT NULL, "
    "turns integer NOT NULL, CONSTRAINT pk_project_words PRIMARY KEY (project, word_hash))",
)
DROP = ("DROP TABLE IF EXISTS project_words",)
# A sample of about this many turns, and the words held by at least 3 of its turns of a project
# and by 1% of them, with the count they suggest (at most the project's turns).
SAMPLED_TURNS = 30_000
ROWS = "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'turns'::regclass"
FILL = """
WITH sample AS MATERIALIZED (
    SELECT project, search_vector FROM turns TABLESAMPLE SYSTEM ({percent})
), sampled AS (
    SELECT project, count(*) AS turns FROM sample GROUP BY project
), held AS (
    SELECT project, word, count(*) AS turns
    FROM sample, unnest(tsvector_to_array(search_vector)) AS word GROUP BY project, word
)
INSERT INTO project_words (project, word_hash, turns)
SELECT held.project, hashtext(held.word),
    least(p.turns, round(held.turns * p.turns / sampled.turns::float8))::integer
FROM held JOIN sampled USING (project) JOIN projects AS p USING (project)
WHERE held.turns >= 3 AND held.turns >= 0.01 * sampled.turns
ON CONFLICT DO NOTHING
"""


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in CREATE:
            op.execute(statement)
        if not op.get_context().as_sql:  # offline SQL: upkeep samples once it runs
            _fill(op.get_bind())


def _fill(conn: Connection) -> None:
    rows = int(conn.execute(text(ROWS)).scalar_one())
    percent = 100.0 if rows <= SAMPLED_TURNS else round(100.0 * SAMPLED_TURNS / rows, 3)
    conn.execute(text(FILL.format(percent=percent)))


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for statement in DROP:
            op.execute(statement)

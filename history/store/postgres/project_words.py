"""How many of one project's turns hold a word, for the words common in that project: what a
project-scoped search decides by whether one statement may rank every match.

Without it, a word's turns in a project are taken as its turns everywhere times the project's
share of all turns; but a project's own identifiers are in that project only, and in many of its
turns (at 1M turns: one in 13,111 of its project's 41,202, where that estimate gave 540), so one
statement expected to rank 540 rows ranked thirteen thousand. Counting a word in a project visits
every row that holds it, so upkeep samples instead: the words of a sample of pages (a few
percent of the table, all projects at once), each project's words held by at least
LEAST_SHARE of its sampled turns kept with the count that share suggests. Words are kept as
`hashtext(word)`, not as text: a forgotten turn's words are not copied here, and a forgotten
project's sample goes with its last turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

from history.store.postgres import schema

TABLE = "project_words"
# About this many turns sampled, all projects together (fewer when the table is smaller).
SAMPLED_TURNS = 30_000
LEAST_SHARE, LEAST_SAMPLED = 0.01, 3


_ROWS = text(schema.ESTIMATED_ROWS)
_REFILL = f"""
WITH sample AS MATERIALIZED (
    SELECT project, search_vector FROM turns TABLESAMPLE SYSTEM ({{percent}})
), sampled AS (
    SELECT project, count(*) AS turns FROM sample GROUP BY project
), held AS (
    SELECT project, word, count(*) AS turns
    FROM sample, unnest(tsvector_to_array(search_vector)) AS word GROUP BY project, word
)
INSERT INTO {TABLE} (project, word_hash, turns)
SELECT held.project, hashtext(held.word),
    least(p.turns, round(held.turns * p.turns / sampled.turns::float8))::integer
FROM held JOIN sampled USING (project) JOIN projects AS p USING (project)
WHERE held.turns >= {LEAST_SAMPLED} AND held.turns >= {LEAST_SHARE} * sampled.turns
ON CONFLICT DO NOTHING
"""
_IN_PROJECT = text(
    f"SELECT word, pw.turns FROM unnest(CAST(:words AS text[])) AS word"
    f" JOIN {TABLE} AS pw ON pw.project = :project AND pw.word_hash = hashtext(word)"
)


def refill(conn: Connection) -> None:
    """Sample the table afresh (in the caller's transaction)."""
    rows = int(conn.execute(_ROWS).scalar_one())
    percent = 100.0 if rows <= SAMPLED_TURNS else round(100.0 * SAMPLED_TURNS / rows, 3)
    conn.execute(text(f"DELETE FROM {TABLE}"))
    conn.execute(text(_REFILL.format(percent=percent)))


def forget_gone_projects(conn: Connection) -> None:
    """Drop the sample of every project no turn is left in (a forgotten project)."""
    conn.execute(
        text(
            f"DELETE FROM {TABLE} AS pw"
            " WHERE NOT EXISTS (SELECT FROM projects AS p WHERE p.project = pw.project)"
        )
    )


def in_project(conn: Connection, project: str, words: Sequence[str]) -> dict[str, int]:
    """The sampled count of the project's turns holding each of `words` that is common there."""
    found = conn.execute(_IN_PROJECT, {"project": project, "words": list(words)})
    return {str(word): int(turns) for word, turns in found}

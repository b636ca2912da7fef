"""A search's tsqueries as values, not as SQL: each query word's tsquery is read once per search
(one statement, as PostgreSQL's parser reads the word), and every condition a part of the search
asks is composed here from them and bound as one value (`CAST(:tsq0 AS tsquery)`).

Why: with each word's tsquery written into the SQL (`plainto_tsquery(:w0) && !!(...)`), every
arrangement of words a part asks was a statement of its own, and an every-project statement is
planned over 64 partitions at its first run on a connection (6-14 ms at 1M turns): a service
met 90-115 kinds, and a search that met a new one paid its planning (bench/RESULTS.md). Bound
as values, the statements differ only by their number of words and the indexes they ask.

The composition keeps PostgreSQL's own rules for its tsquery operators: `&&` and `||` with an
empty tsquery give the other one, `!!` of an empty one is empty."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sqlalchemy import Connection, text

from history.store.postgres import project_index, schema

_READ = text(
    f"SELECT CAST({schema.word_query('w')} AS text),"
    f" CAST(to_tsquery('{schema.CONFIG}', quote_literal(w) || '\\:A') AS text),"
    f" CAST({project_index.word_query('w', ':anywhere')} AS text),"
    f" CAST({project_index.word_query('w', ':asked')} AS text)"
    " FROM unnest(CAST(:words AS text[])) WITH ORDINALITY AS given(w, n) ORDER BY n"
)


class WordTexts(NamedTuple):
    """The text of each word's tsquery, in the order of the words: `plain` (the vector's and the
    question index's words), `in_question` (the vector's question only: weight A), and in the
    project's own index (project_index.py) `anywhere` and `asked` (every project: as plain)."""

    plain: list[str]
    in_question: list[str]
    anywhere: list[str]
    asked: list[str]


def read(conn: Connection, words: Sequence[str], project: str | None) -> WordTexts:
    def prefix(marker: str) -> str:
        return "" if project is None else project_index.prefix(project, marker)

    params = {
        "words": list(words),
        "anywhere": prefix(project_index.ANYWHERE),
        "asked": prefix(project_index.ASKED),
    }
    rows = conn.execute(_READ, params).all()
    plain, in_question, anywhere, asked = ([str(row[n]) for row in rows] for n in range(4))
    return WordTexts(plain, in_question, anywhere, asked)


def both(*queries: str) -> str:
    """`a && b && ...`, as text."""
    return _joined(" & ", queries)


def either(queries: Iterable[str]) -> str:
    """`a || b || ...`, as text."""
    return _joined(" | ", queries)


def negated(query: str) -> str:
    """`!!a`, as text."""
    return f"!({query})" if query else ""


def _joined(operator: str, queries: Iterable[str]) -> str:
    kept = [query for query in queries if query]
    if len(kept) == 1:
        return kept[0]
    return operator.join(f"({query})" for query in kept)

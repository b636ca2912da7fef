"""How many turns hold each common word, kept beside FTS5 so that a search need not count them.

The ranking needs each query word's count of turns (its idf): the turns holding it in a column
other than the work, as recall_bm25 counts it (fts5_rank.c). FTS5 counts a word by reading
its whole posting list: ~22 ns a posting, so ~13 ms for a word in 60% of a million turns, paid
by each process the first time it meets the word (fts_search.py caches counts after that). The
upkeep counts the words it finds in at least best_turns.LIST_FROM_SHARE of a sample of the turns
(a list's build counts its word as it goes) and keeps each count with the number of turns the
index held then. A search takes a count while the index has grown by at most FRESH_FOR_GROWTH
since (its own cache's rule) and counts with FTS5 otherwise.

Deleting or rewriting any turn empties the table in the same statement (triggers): no count a
forget made wrong is ever read, and nothing counted from a forgotten turn stays behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from history.query import quote
from history.store.sqlite import fts
from history.store.sqlite.reads import Sql, operational

if TYPE_CHECKING:
    from sqlalchemy import Connection

TABLE = "word_counts"
# As fts_search.REFRESH_AFTER_GROWTH: a count that lags this much growth moves an idf by less
# than a hundredth.
FRESH_FOR_GROWTH = 0.01
_VOCAB = f"temp.{fts.FTS_TABLE}_vocab"
# The compiled count of a word's turns, the work column left out (fts5_rank.c).
ROWS_FUNCTION = "recall_rows"


def read(conn: Sql, words: Sequence[str], rows: int) -> dict[str, int]:
    """The counts of `words` (index forms) still fresh in an index of `rows` turns; none from a
    file without the table (opened read-only before it could be migrated)."""
    if not words:
        return {}
    marks = ", ".join("?" for _ in words)
    try:
        found = conn.exec_driver_sql(
            f"SELECT word, holding, turns FROM {TABLE} WHERE word IN ({marks})", tuple(words)
        ).all()
    except Exception as error:
        if not operational(error):
            raise
        return {}
    return {
        str(word): int(holding)
        for word, holding, turns in found
        if turns <= rows <= turns * (1 + FRESH_FOR_GROWTH) and 0 < holding <= turns
    }


def keep(conn: Connection, word: str, holding: int, rows: int) -> None:
    conn.exec_driver_sql(
        f"INSERT INTO {TABLE} (word, holding, turns) VALUES (?, ?, ?) "
        "ON CONFLICT (word) DO UPDATE SET holding = excluded.holding, turns = excluded.turns",
        (word, holding, rows),
    )


def stale(conn: Connection, words: Sequence[str], rows: int) -> list[str]:
    """Which of `words` have no fresh count."""
    fresh = read(conn, words, rows)
    return [word for word in words if word not in fresh]


def count(conn: Sql, form: str, word: str | None = None) -> int:
    """The turns holding `form` (an index form) in a column other than the work, as recall_bm25
    counts it: the compiled recall_rows walks the postings of `word` (a word of that form, the
    form itself by default: FTS5 stems what a MATCH says). Where the library has no recall_rows,
    the search ranks with bm25(), which counts a word in the whole row: then FTS5's vocabulary's
    count (both read the word's postings)."""
    try:
        found = conn.exec_driver_sql(
            f"SELECT {ROWS_FUNCTION}({fts.FTS_TABLE}) FROM {fts.FTS_TABLE} "
            f"WHERE {fts.FTS_TABLE} MATCH ? LIMIT 1",
            (quote(word if word is not None else form),),
        ).scalar()
    except Exception as error:  # no such function: a library built before it, or none
        if not operational(error):
            raise
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} "
            f"USING fts5vocab(main, {fts.FTS_TABLE}, row)"
        )
        found = conn.exec_driver_sql(f"SELECT doc FROM {_VOCAB} WHERE term = ?", (form,)).scalar()
    return int(found or 0)

"""Full-text search that stays fast as the index grows: bm25 top-k without reading every posting.

FTS5's bm25() reads the whole posting list of every term in the MATCH expression, so a naive
query costs as much as the number of turns holding its commonest word. Here the rarest terms
(the "essential" ones, up to a budget of postings) go to FTS5, which ranks the turns holding them;
the other terms' bm25 contributions are added in Python for the best candidates only, from their
text and FTS5's own document sizes. The common terms weigh little (their idf is small), so the
re-scored top k is bm25's top k but for the rare turn whose common words outweigh a rare one
(bench/RESULTS.md measures how rare: the top-5 overlap with the exhaustive ranking). A query whose
rarest word alone is over the budget is answered from the newest turns holding it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    column,
    literal_column,
    select,
    table,
    text,
)

from history import fts
from history.models import TURN_COLUMNS, Turn
from history.query import fold, fts_match, quote
from history.ranking import COLUMN_WEIGHTS, idf, length_norm, term_score

# Postings FTS5 may score for one query: the essential terms' summed document frequencies.
POSTINGS_BUDGET = 30_000
# Below this many turns counting is cheap, and always fresh.
CACHE_FROM_ROWS = 20_000
# Candidates re-scored in Python when some terms were left to it.
MIN_CANDIDATES = 500
_turns_fts = table(fts.FTS_TABLE, column("rowid"))
_docsize = table(f"{fts.FTS_TABLE}_docsize", column("id"), column("sz"))
# The project tag column weighs nothing: it only narrows.
_BM25: ColumnElement[float] = literal_column(
    f"bm25({fts.FTS_TABLE}, {', '.join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))})"
)


_ASKED_AT = [c.key for c in TURN_COLUMNS].index("asked_at")


@dataclass(frozen=True)
class Totals:
    rows: int
    average_length: float
    max_rowid: int


def _varints(blob: bytes) -> list[int]:
    """SQLite's big-endian varints, as FTS5 writes its averages and document sizes."""
    values, value, position = [], 0, 0
    for byte in blob:
        position += 1
        if position == 9:
            values.append((value << 8) | byte)
            value, position = 0, 0
            continue
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            values.append(value)
            value, position = 0, 0
    return values


class FtsSearch:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._document_frequency: dict[str, int] = {}
        self._cached_at_rows = 0
        self._lock = threading.Lock()

    def search(
        self,
        terms: Sequence[str],
        project: str | None,
        scope: Sequence[ColumnElement[bool]],
        k: int,
    ) -> list[tuple[Any, float]]:
        """The best `k` rows (with their scores) for `terms` in `project` (None: every project),
        further narrowed by `scope` (conditions on `turns`)."""
        with self.engine.connect() as conn:
            totals = _totals(conn)
            frequency = self._frequencies(conn, terms, totals.rows)
            # A cached count of 0 may be stale: such a term goes to FTS5 first, which knows.
            present = sorted(terms, key=lambda term: frequency[term])
            essential, budget = [present[0]], frequency[present[0]]
            for term in present[1:]:
                if budget + frequency[term] > POSTINGS_BUDGET:
                    break
                essential.append(term)
                budget += frequency[term]
            rest = present[len(essential) :]
            floor = None
            if budget > POSTINGS_BUDGET:  # the rarest word alone is too common: newest turns
                floor = totals.max_rowid - POSTINGS_BUDGET * totals.max_rowid // budget
            # A few more than k even when FTS5's order is final: SQL breaks ties by rowid, and
            # the newer turn (asked_at) must win them.
            wanted = k + 20 if not rest else max(MIN_CANDIDATES, 10 * k)
            rows = self._candidates(conn, essential, project, scope, wanted, floor)
            idfs = {term: (idf(totals.rows, frequency[term]), _word_pattern(term)) for term in rest}
            scored = [
                (row[:-2], -float(row[-2]) + (_contribution(row, idfs, totals) if idfs else 0.0))
                for row in rows
            ]
        scored.sort(key=lambda pair: (-pair[1], -pair[0][_ASKED_AT].timestamp()))
        return scored[:k]

    def _candidates(
        self,
        conn: Connection,
        essential: Sequence[str],
        project: str | None,
        scope: Sequence[ColumnElement[bool]],
        limit: int,
        floor: int | None,
    ) -> list[Any]:
        """The best `limit` turns for the essential terms, with their bm25 and document size.

        Ranking carries only rowid and score through the sort; the rows' text is read for the
        winners alone."""
        match = fts_match(essential, fts.TEXT_COLUMNS)
        if project is not None:
            match = f"{match} AND {fts.PROJECT_TAG} : {quote(fts.project_tag(project))}"
        ranked = (
            select(_turns_fts.c.rowid, _BM25)
            .select_from(_turns_fts)
            .where(text(f"{fts.FTS_TABLE} MATCH :match").bindparams(match=match))
            .order_by(_BM25, _turns_fts.c.rowid.desc())
            .limit(limit)
        )
        if scope:
            ranked = ranked.join(Turn, Turn.id == _turns_fts.c.rowid).where(*scope)
        if floor is not None:
            ranked = ranked.where(_turns_fts.c.rowid > floor)
        best = {rowid: score for rowid, score in conn.execute(ranked)}
        rows = conn.execute(
            select(Turn.id, *TURN_COLUMNS, _docsize.c.sz)
            .join(_docsize, _docsize.c.id == Turn.id)
            .where(Turn.id.in_(list(best)))
        )
        return [(*row[1:-1], best[row[0]], row[-1]) for row in rows]

    def _frequencies(self, conn: Connection, terms: Sequence[str], rows: int) -> dict[str, int]:
        """Document frequencies from fts5vocab: counting one reads its posting list, so on a
        large index they are cached until it has grown by a tenth (or shrunk). They only decide
        which terms FTS5 ranks and weigh the others, so a slightly stale count costs little."""
        with self._lock:
            stale = rows > self._cached_at_rows * 1.1 or rows < self._cached_at_rows
            if rows < CACHE_FROM_ROWS or stale:
                self._document_frequency.clear()
                self._cached_at_rows = rows
            missing = [term for term in terms if term not in self._document_frequency]
        if missing:
            conn.exec_driver_sql(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts.FTS_TABLE}_vocab "
                f"USING fts5vocab(main, {fts.FTS_TABLE}, row)"
            )
            found = dict.fromkeys(missing, 0)
            query = text(f"SELECT term, doc FROM temp.{fts.FTS_TABLE}_vocab WHERE term = :term")
            for term in missing:
                found.update((str(t), int(n)) for t, n in conn.execute(query, {"term": term}))
            with self._lock:
                self._document_frequency.update(found)
        with self._lock:
            return {term: self._document_frequency.get(term, 0) for term in terms}


def _word_pattern(term: str) -> re.Pattern[str]:
    """`term` as a whole word of folded text, as the tokenizer splits it."""
    return re.compile(rf"(?<![^\W_]){re.escape(term)}(?![^\W_])")


def _totals(conn: Connection) -> Totals:
    averages = conn.exec_driver_sql(f"SELECT block FROM {fts.FTS_TABLE}_data WHERE id = 1").scalar()
    values = _varints(averages or b"")
    rows = values[0] if values else 0
    tokens = sum(values[1:])
    max_rowid = conn.exec_driver_sql("SELECT max(id) FROM turns").scalar() or 0
    return Totals(rows=rows, average_length=tokens / rows if rows else 1.0, max_rowid=max_rowid)


def _contribution(
    row: Any, idfs: dict[str, tuple[float, re.Pattern[str]]], totals: Totals
) -> float:
    """bm25 of the given terms for one candidate row, as FTS5 would score them."""
    length = sum(_varints(row[-1] or b""))
    norm = length_norm(length, totals.average_length)
    columns = (fold(row[5]), fold(row[6]), fold(row[7]))
    return sum(
        term_score(
            term_idf,
            sum(
                weight * len(pattern.findall(text))
                for weight, text in zip(COLUMN_WEIGHTS, columns, strict=True)
            ),
            norm,
        )
        for term_idf, pattern in idfs.values()
    )

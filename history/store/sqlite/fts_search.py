"""Full-text search that stays fast as the index grows: bm25's exact top k without ranking
every turn that holds a common word.

FTS5's bm25() costs about a microsecond for each row it scores, so a naive query costs as much as
the number of turns holding its commonest word. Here the matching turns are split by the rarest
query word they hold, rarest first, and FTS5 ranks each part with every query word in the MATCH,
so each score is the exhaustive ranking's own. A term's score is below a bound whatever its
frequency (ranking.score_bound), so once the k-th best score found beats the sum of those bounds
over the words not yet visited, no turn left can enter the top k and the search stops: the
common words are reached only when turns holding nothing else could still win. Once a search's
work budget is spent, a part is ranked in its newest turns only, and the result says so
(`approximate`; bench/RESULTS.md measures the overlap that costs).
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Dialect, Engine, select, text

from history.query import fts_match, quote, stem
from history.ranking import COLUMN_WEIGHTS, exact_form_bonus, idf, score_bound, share_of_best
from history.store.models import TURN_COLUMNS, Turn, UtcDateTime
from history.store.rows import Ranked
from history.store.sqlite import fts

# What one search may cost FTS5, in rows scored. Each word in a MATCH also costs a read of its
# posting list (bm25 counts its turns): a posting costs about a fiftieth of a scored row.
WORK_BUDGET = 20_000
# A row scored in a project-scoped search costs about this many (FTS5 also steps through the
# project tag's postings, and bm25 reads the tag's hits in every row).
PROJECT_ROW_COST = 2.0
POSTINGS_READ_PER_ROW_SCORED = 50
# The fewest newest rows a part over the budget is ranked in.
WINDOW_ROWS = 2_000
# Below this many turns counting is cheap, and always fresh.
CACHE_FROM_ROWS = 20_000
# Ranked beyond k in each part: SQL breaks ties by rowid, and the newer turn (asked_at) must win;
# and the exact-form bonus can lift a turn over others above it by bm25 (at 50k turns, 20 kept the
# top 5 of the shipped scoring 0.931 of the time every project, 60 keeps it 0.988).
TIE_MARGIN = 60
# The project tag column weighs nothing: it only narrows.
_BM25 = f"bm25({fts.FTS_TABLE}, {', '.join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))})"
_RANKED_FROM = f"SELECT {fts.FTS_TABLE}.rowid, {_BM25} AS score FROM {fts.FTS_TABLE}"
_RANKED_WHERE = (
    f" WHERE {fts.FTS_TABLE} MATCH ? AND {fts.FTS_TABLE}.rowid > ?"
    f" ORDER BY score, {fts.FTS_TABLE}.rowid DESC LIMIT ?"
)
_RANKED = _RANKED_FROM + _RANKED_WHERE
_RANKED_SINCE = (
    f"{_RANKED_FROM} JOIN turns ON turns.id = {fts.FTS_TABLE}.rowid AND turns.asked_at >= ?"
    + _RANKED_WHERE
)
_OLDEST_KEPT = (
    f"SELECT rowid FROM {fts.FTS_TABLE} WHERE {fts.FTS_TABLE} MATCH ?"
    " ORDER BY rowid DESC LIMIT 1 OFFSET ?"
)
_ASKED_AT = [c.key for c in TURN_COLUMNS].index("asked_at")


class _Best:
    """The scores found so far, by rowid, and the k-th best of them: the bar a turn must pass."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.scores: dict[int, float] = {}

    def add(self, found: dict[int, float]) -> None:
        """Keep each turn's best score: a part that left out some of its words scores it low.
        A score of 0 is no match: the word was some project's tag, in the weightless column."""
        for rowid, score in found.items():
            if score > self.scores.get(rowid, 0.0):
                self.scores[rowid] = score

    def bar(self) -> float:
        if len(self.scores) < self.k:
            return 0.0
        return heapq.nlargest(self.k, self.scores.values())[-1]


class _Budget:
    """The work one search may give FTS5, part by part: reading the posting list of every word
    in a MATCH (bm25 counts each word's turns) and scoring the rows the part matches. A part over
    what is left is ranked in its newest rows only; the first part always runs."""

    def __init__(self, frequency: dict[str, int], tag: str | None) -> None:
        self.frequency, self.tag = frequency, tag
        self.row_cost = 1.0 if tag is None else PROJECT_ROW_COST
        self.left: float = WORK_BUDGET

    def _cost(self, held: Sequence[str], any_of: Sequence[str]) -> tuple[float, int]:
        """The cost of the reads, and the most rows the part can match."""
        tag = [self.tag] if self.tag else []
        reads = sum(self.frequency[word] for word in [*held, *any_of, *tag])
        most = min([sum(self.frequency[word] for word in held), *(self.frequency[t] for t in tag)])
        return reads / POSTINGS_READ_PER_ROW_SCORED, most

    def fits(self, held: Sequence[str]) -> bool:
        reads, most = self._cost(held, [])
        return reads + most * self.row_cost <= self.left

    def window(self, held: Sequence[str], any_of: Sequence[str]) -> int | None:
        """How many of the part's newest rows it may rank (0: all of them), or None: skip it."""
        reads, most = self._cost(held, any_of)
        first = self.left == WORK_BUDGET
        allowed = (self.left - reads) / self.row_cost
        self.left -= reads + most * self.row_cost  # below 0 once a part is windowed: no more
        if most <= allowed:
            return 0
        if allowed < WINDOW_ROWS and not first:
            return None
        return int(max(allowed, WINDOW_ROWS))


class FtsSearch:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._document_frequency: dict[str, int] = {}
        self._cached_at_rows = 0
        self._lock = threading.Lock()

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> Ranked:
        """The best `k` rows (with their scores) for `terms` in `project` (None: every project),
        asked at `since` or later, and whether some part was cut short."""
        with self.engine.connect() as conn:
            indexed = fts.indexed_rows(conn)
            tag = fts.project_tag(project) if project is not None else None
            stored_since = _stored(since, conn.dialect) if since is not None else None
            frequency = self._frequencies(conn, [*terms, *([tag] if tag else [])], indexed)
            budget = _Budget(frequency, tag)
            # A cached count of 0 may be stale: such a term comes first, where FTS5 counts.
            ordered = sorted(terms, key=lambda term: frequency[term])
            term_idf = {term: idf(indexed, frequency[term]) for term in terms}
            ceiling = [score_bound(term_idf[term]) for term in ordered]
            best = _Best(k)
            cut_short = False

            def rank(held: Sequence[str], any_of: Sequence[str]) -> None:
                nonlocal cut_short
                window = budget.window(held, any_of)
                if window is None:
                    cut_short = True
                    return
                found, whole = _ranked(conn, held, any_of, tag, stored_since, k, window)
                best.add(found)
                cut_short = cut_short or not whole

            at_once = budget.fits(ordered)
            if at_once:  # every matching turn in one ranking: the exhaustive one
                rank(ordered, [])
            for i, term in enumerate([] if at_once else ordered):
                if sum(ceiling[i:]) < best.bar():
                    break
                # The turns holding this word and a commoner one, then those holding it alone
                # (scored without the others: below their real score, which another part has).
                if later := ordered[i + 1 :]:
                    rank([term], later)
                if ceiling[i] >= best.bar():
                    rank([term], [])
            ranked = heapq.nlargest(k + TIE_MARGIN, best.scores.items(), key=lambda item: item[1])
            rows = conn.execute(
                select(Turn.id, *TURN_COLUMNS).where(Turn.id.in_([rowid for rowid, _ in ranked]))
            )
            # A turn's score is its bm25 plus the exact-form bonus, which only the best k +
            # TIE_MARGIN by bm25 are given: a turn further down would need a bonus larger than
            # the gap (bench/RESULTS.md measures how often the top 5 then differs).
            scored: list[tuple[Any, float]] = [
                (row[1:], best.scores[row.id] + _bonus(terms, row, term_idf)) for row in rows
            ]
        scored.sort(key=lambda pair: (-pair[1], -pair[0][_ASKED_AT].timestamp()))
        bounds = [score_bound(value) for value in term_idf.values()]
        return Ranked([(row, share_of_best(score, bounds)) for row, score in scored[:k]], cut_short)

    def _frequencies(self, conn: Connection, terms: Sequence[str], rows: int) -> dict[str, int]:
        """Document frequencies from fts5vocab: counting one reads its posting list, so on a
        large index they are cached until it has grown by a tenth (or shrunk). They order the
        words, size the parts and bound each word's score; FTS5 scores with fresh counts. A count
        that lags behind growth only raises the bound; one that lags a rewrite of turns lowers it
        by a hair, and the bound (idf x 2.2) is well above what any real row scores. A word whose
        Python stem differs from FTS5's (PyStemmer's Porter parts from FTS5's on a few rare
        endings) counts 0: it then comes first, and its bound is the highest, so still safe."""
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
            query = text(f"SELECT doc FROM temp.{fts.FTS_TABLE}_vocab WHERE term = :term")
            for term in missing:  # the index holds stems; FTS5 stems the MATCH's words itself
                found[term] = int(conn.execute(query, {"term": stem(term)}).scalar() or 0)
            with self._lock:
                self._document_frequency.update(found)
        with self._lock:
            return {term: self._document_frequency.get(term, 0) for term in terms}


def _ranked(
    conn: Connection,
    held: Sequence[str],
    any_of: Sequence[str],
    tag: str | None,
    since: str | None,
    k: int,
    window: int,
) -> tuple[dict[int, float], bool]:
    """The best turns (rowid: score) that hold one of `held` and one of `any_of` if given,
    among the newest `window` such turns (0: all), ranked by FTS5's bm25 over those words; and
    whether that was all of them (the window held every match).
    Plain SQL: a search runs several of these, and building each through SQLAlchemy cost more
    than a small one takes to run."""
    match = _words(held)
    if any_of:
        match = f"{match} AND {_words(any_of)}"
    if tag is not None:
        match = f"{match} AND {fts.PROJECT_TAG} : {quote(tag)}"
    floor = 0
    if window:  # FTS5 walks rowids newest first without scoring: cheap
        floor = conn.exec_driver_sql(_OLDEST_KEPT, (match, window)).scalar() or 0
    if since is None:
        rows = conn.exec_driver_sql(_RANKED, (match, floor, k + TIE_MARGIN))
    else:
        rows = conn.exec_driver_sql(_RANKED_SINCE, (since, match, floor, k + TIE_MARGIN))
    return {rowid: -float(score) for rowid, score in rows}, floor == 0


def _bonus(terms: Sequence[str], row: Any, term_idf: dict[str, float]) -> float:
    return exact_form_bonus(terms, (row.asked, row.answered, row.files), term_idf)


def _stored(when: datetime, dialect: Dialect) -> str:
    """`when` as `turns.asked_at` stores it."""
    process = UtcDateTime().bind_processor(dialect)
    return str(process(when) if process else when)


def _words(words: Sequence[str]) -> str:
    # No column filter: it would double the cost of bm25's count of each word (FTS5 would read
    # where each hit is). A word found only in the tag column scores 0, and _Best drops it.
    return f"({fts_match(words)})"

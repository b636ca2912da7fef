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

Where the compiled recall_bm25 loads (rank_extension.py), it ranks instead of bm25(): the same
scores, given the cached word counts instead of reading each word's posting list again in every
statement. The exact-form bonus is added last (exact_forms.py), to every candidate that can
still reach the top k with it; a part whose left-out turns could, is ranked again deeper.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Dialect, Engine, select

from history.query import stem
from history.ranking import idf, score_bound, share_of_best
from history.store.models import TURN_COLUMNS, Turn, UtcDateTime
from history.store.rows import Ranked
from history.store.sqlite import best_turns, exact_forms, fts, rank_extension, word_counts
from history.store.sqlite.fts_parts import Best, Part

# What one search may cost FTS5, in rows scored. With bm25() (not recall_bm25), each word in a
# MATCH also costs a read of its posting list: a posting costs about a fiftieth of a scored row.
# At 1M turns with recall_bm25 (bench/RESULTS.md), 40,000 cut 19% of the standard mix's searches
# short every project (top-5 overlap with the exhaustive ranking 0.942) and 25% of the common
# mix's (0.865); 80,000 cuts 8% (0.982) and 15% (0.96), for +2 ms CPU p95 (standard) and +23 ms
# (common).
WORK_BUDGET = 80_000
# A row scored in a project-scoped search costs about this many (FTS5 also steps through the
# project tag's postings, and the ranking reads the tag's hits in every row).
PROJECT_ROW_COST = 4.0
POSTINGS_READ_PER_ROW_SCORED = 50
# The fewest newest rows a part over the budget is ranked in.
WINDOW_ROWS = 2_000
# A part over the budget whose matches, were its words and the project independent of each
# other, would fill at most this share of its window is ranked whole instead (its result is then
# exact). A window costs a walk newest first, ~1.4x ranking the same rows oldest first; at 1M
# turns no windowed part of the standard mix filled its window (one-project parts held 1-20x
# their estimate: project identifiers, words that go together). Misjudged, a part ranks all its
# matches: no more than the turns of the word it holds, or the project's. At 1M
# (bench/RESULTS.md) a half gave a lower p95 than a quarter every project on both mixes (common
# 43.5 -> 35.0 ms) and one project on the standard mix, the same one project on the common mix;
# the share cut short unchanged.
LIKELY_WHOLE = 1 / 2
# Below this many turns counting is cheap, and always fresh.
CACHE_FROM_ROWS = 20_000
# Above it the counts are kept until the index has grown by this share, or shrunk: recall_bm25
# scores with them, so they are the index's own in a file nothing was added to since.
REFRESH_AFTER_GROWTH = 0.01
_RANKED_WHERE = (
    f" WHERE {fts.FTS_TABLE} MATCH ? AND {fts.FTS_TABLE}.rowid > ?"
    f" ORDER BY score, {fts.FTS_TABLE}.rowid DESC LIMIT ?"
)
_SINCE = f" JOIN turns ON turns.id = {fts.FTS_TABLE}.rowid AND turns.asked_at >= ?"
_NEWEST_WHERE = (
    f" WHERE {fts.FTS_TABLE} MATCH ? AND {fts.FTS_TABLE}.rowid > ?"
    f" ORDER BY {fts.FTS_TABLE}.rowid DESC LIMIT ?"
)
_ASKED_AT = [c.key for c in TURN_COLUMNS].index("asked_at")


class _Budget:
    """The work one search may give FTS5, part by part: scoring the rows the part matches and,
    when bm25() ranks (not recall_bm25, which is given the counts), reading the posting list of
    every word in a MATCH (bm25 counts each word's turns). A part over what is left is ranked in
    its newest rows only; the first part always runs."""

    def __init__(
        self, frequency: dict[str, int], tag: str | None, counts_read: bool, rows: int
    ) -> None:
        self.frequency, self.tag, self.counts_read = frequency, tag, counts_read
        self.rows = max(rows, 1)
        self.row_cost = 1.0 if tag is None else PROJECT_ROW_COST
        self.left: float = WORK_BUDGET

    def _cost(self, held: Sequence[str], any_of: Sequence[str]) -> tuple[float, int]:
        """The cost of the reads, and the most rows the part can match."""
        tag = [self.tag] if self.tag else []
        counted = [*held, *any_of, *tag] if self.counts_read else []
        reads = sum(self.frequency[word] for word in counted)
        most = min([sum(self.frequency[word] for word in held), *(self.frequency[t] for t in tag)])
        return reads / POSTINGS_READ_PER_ROW_SCORED, most

    def fits(self, held: Sequence[str]) -> bool:
        reads, most = self._cost(held, [])
        return reads + most * self.row_cost <= self.left

    def again(self, cost: float) -> bool:
        """Whether a part already paid for (`cost`) may be ranked again, deeper; pays if so."""
        if cost > self.left:
            return False
        self.left -= cost
        return True

    def cost(self, held: Sequence[str], any_of: Sequence[str]) -> float:
        reads, most = self._cost(held, any_of)
        return reads + most * self.row_cost

    def expected(self, held: Sequence[str], any_of: Sequence[str]) -> float:
        """The rows the part would match were its words and the project independent."""
        share = 1.0
        for words in (held, any_of, [self.tag] if self.tag else []):
            if words:
                share *= min(1.0, sum(self.frequency[word] for word in words) / self.rows)
        return share * self.rows

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
        window = int(max(allowed, WINDOW_ROWS))
        return 0 if self.expected(held, any_of) <= window * LIKELY_WHOLE else window


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
            counts = frequency if conn.connection.info.get(rank_extension.FUNCTION) else None
            budget = _Budget(frequency, tag, counts_read=counts is None, rows=indexed)
            # A cached count of 0 may be stale: such a term comes first, where FTS5 counts.
            ordered = sorted(terms, key=lambda term: frequency[term])
            term_idf = {term: idf(indexed, frequency[term]) for term in terms}
            ceiling = [score_bound(term_idf[term]) for term in ordered]
            best = Best(k)
            limit = k + exact_forms.CANDIDATES_PER_PART
            cut_short = False
            # The parts that returned all `limit` rows they were asked for: their window and cost.
            full: list[tuple[Part, int, float]] = []

            # The common words' lists (best_turns.py): with recall_bm25, no date limit.
            lists = counts is not None and stored_since is None
            average = fts.average_length(conn) if lists else 1.0
            last = best_turns.last_turn(conn) if lists else 0

            def from_list(term: str, part: Part, cost: float) -> bool:
                """The turns holding `term` and no commoner query word, from its list and FTS5
                after the list's last turn; False (nothing done) without a fresh list."""
                if frequency[term] < best_turns.LIST_FROM_ROWS:
                    return False
                listed = best_turns.read(conn, stem(term), project)
                if listed is None:
                    return False
                after = frequency[term] * max(last - listed.built_upto, 0) / max(last, 1)
                if not budget.again(after * budget.row_cost):
                    return False
                bonus, _ = part.bonus({}, term_idf)
                # Each listed turn's bm25 for the word alone: a turn holding a commoner word
                # too scores more in the part that has both, and Best keeps that.
                best.add(listed.scores(term_idf[term], average), len(listed.turns) + 1, bonus, {})
                left_out = listed.left_out(term_idf[term], average)
                if tag is not None and left_out > 0:
                    # A project holds a twentieth of a list: it stands in for the part only if
                    # the best found so far already beat all the list left out (else FTS5 ranks
                    # the part as before; its listed turns' scores are their own, kept).
                    final, _ = exact_forms.with_bonus(
                        conn, terms, term_idf, best.scores, best.reach(), -math.inf, k
                    )
                    if exact_forms.unseen_could_pass(final, left_out + bonus, k):
                        return False
                    left_out = 0.0
                deeper = left_out > 0
                if left_out > 0:
                    best.unseen = max(best.unseen, left_out + bonus)
                if listed.built_upto < last:
                    found, masks, _ = _ranked(
                        conn, part, counts, None, limit, 0, floor=listed.built_upto
                    )
                    best.add(found, limit, *part.bonus(masks, term_idf))
                    deeper = deeper or len(found) >= limit
                if deeper:  # ranked again by FTS5, whole, if the k-th best is not proven
                    full.append((part, 0, cost))
                return True

            def rank(held: Sequence[str], any_of: Sequence[str], without: Sequence[str]) -> None:
                nonlocal cut_short
                cost = budget.cost(held, any_of)
                # A list holds one word's turns: a part of several (the whole query at once)
                # is ranked by FTS5, or the turns holding only its other words would be missed.
                alone = lists and len(held) == 1 and not any_of
                if alone and from_list(held[0], Part(held, [], tag, without), cost):
                    return
                window = budget.window(held, any_of)
                if window is None:
                    cut_short = True
                    return
                part = Part(held, any_of, tag, without)
                found, masks, whole = _ranked(conn, part, counts, stored_since, limit, window)
                best.add(found, limit, *part.bonus(masks, term_idf))
                cut_short = cut_short or not whole
                if len(found) >= limit:
                    full.append((part, window, cost))

            at_once = budget.fits(ordered)
            if at_once:  # every matching turn in one ranking: the exhaustive one
                rank(ordered, [], [])
            for i, term in enumerate([] if at_once else ordered):
                if sum(ceiling[i:]) < best.bar():
                    break
                # The turns holding this word and a commoner one, then those holding it alone.
                # With bm25(), "alone" is every turn holding it (scored without the others:
                # below their real score, which the first part has): a NOT would make bm25
                # count the commoner words' turns once more.
                if later := ordered[i + 1 :]:
                    rank([term], later, [])
                if ceiling[i] >= best.bar():
                    rank([term], [], later if counts is not None else [])
            final, proven = exact_forms.with_bonus(
                conn, terms, term_idf, best.scores, best.reach(), best.unseen, k
            )
            # A turn some part left below its LIMIT could still pass the k-th best with its
            # bonus: those parts again, four times deeper, while the budget allows.
            while not proven and full and limit < exact_forms.DEEPEST:
                if not exact_forms.unseen_could_pass(final, best.unseen, k):
                    break
                again, full = full, []
                if not budget.again(sum(cost for *_, cost in again)):
                    break
                limit, best.unseen = min(limit * 4, exact_forms.DEEPEST), -math.inf
                for part, window, cost in again:
                    found, masks, _ = _ranked(conn, part, counts, stored_since, limit, window)
                    best.add(found, limit, *part.bonus(masks, term_idf))
                    if len(found) >= limit:
                        full.append((part, window, cost))
                final, proven = exact_forms.with_bonus(
                    conn, terms, term_idf, best.scores, best.reach(), best.unseen, k
                )
            top = heapq.nlargest(k, final.values())
            kept = [rowid for rowid, score in final.items() if top and score >= top[-1]]
            rows = conn.execute(select(Turn.id, *TURN_COLUMNS).where(Turn.id.in_(kept)))
            scored: list[tuple[Any, float]] = [(row[1:], final[row.id]) for row in rows]
        scored.sort(key=lambda pair: (-pair[1], -pair[0][_ASKED_AT].timestamp()))
        bounds = [score_bound(value) for value in term_idf.values()]
        ranked = [(row, share_of_best(score, bounds)) for row, score in scored[:k]]
        return Ranked(ranked, cut_short or not proven)

    def _frequencies(self, conn: Connection, terms: Sequence[str], rows: int) -> dict[str, int]:
        """Document frequencies from fts5vocab: counting one reads its posting list, so on a
        large index they are cached until it has grown by a hundredth (or shrunk: a forget).
        They order the words, size the parts and bound each word's score, and recall_bm25 scores
        with them (bm25() counts afresh). A count that lags behind growth only raises the bound,
        and moves an idf by less than a hundredth; one that lags a rewrite of turns lowers it by
        a hair, and the bound (idf x 2.2) is well above what any real row scores. A word whose
        Python stem differs from FTS5's (PyStemmer's Porter parts from FTS5's on a few rare
        endings) counts 0: it then comes first, its bound is the highest, so still safe, and
        recall_bm25, given no count, counts it."""
        with self._lock:
            grown = rows > self._cached_at_rows * (1 + REFRESH_AFTER_GROWTH)
            stale = grown or rows < self._cached_at_rows
            if rows < CACHE_FROM_ROWS or stale:
                self._document_frequency.clear()
                self._cached_at_rows = rows
            missing = [term for term in terms if term not in self._document_frequency]
        if missing:
            # The index holds stems; FTS5 stems the MATCH's words itself. The upkeep's counts
            # of common words first (word_counts.py), on an index large enough to cache them.
            stems = {term: stem(term) for term in missing}
            kept: dict[str, int] = {}
            if rows >= CACHE_FROM_ROWS:
                kept = word_counts.read(conn, sorted(set(stems.values())), rows)
            found = {
                term: kept[form] if form in kept else word_counts.count(conn, form, term)
                for term, form in stems.items()
            }
            with self._lock:
                self._document_frequency.update(found)
        with self._lock:
            return {term: self._document_frequency.get(term, 0) for term in terms}


def _ranked(
    conn: Connection,
    part: Part,
    counts: dict[str, int] | None,
    since: str | None,
    limit: int,
    window: int,
    floor: int = 0,
) -> tuple[dict[int, float], dict[int, int], bool]:
    """The best `limit` turns (rowid: score) of `part`, among its newest `window` turns (0:
    all; one more when more match) and after `floor`, ranked by bm25 over its words; with
    recall_bm25, which of the part's phrases each holds (rowid: bit mask); and whether that was
    all of them (the window held every match).
    Plain SQL: a search runs several of these, and building each through SQLAlchemy cost more
    than a small one takes to run."""
    function, given = part.ranking(counts, limit)
    phrases = f"{rank_extension.PHRASES}({fts.FTS_TABLE})" if counts is not None else "NULL"
    columns = f"{fts.FTS_TABLE}.rowid AS id, {function} AS score, {phrases}"
    joined = _SINCE if since is not None else ""
    dated = (since,) if since is not None else ()
    if window:
        # The newest window + 1 matches, scored in the same walk (FTS5 goes newest first and
        # stops there), then the best of them: whole when no more than `window` matched.
        newest = f"SELECT {columns} FROM {fts.FTS_TABLE}{joined}{_NEWEST_WHERE}"
        walked = (*given, *dated, part.match, floor, window + 1, limit)
        if counts is not None and since is None:
            # recall_scored() counts the walk: each row it took was scored once (no row, no call).
            rows = conn.exec_driver_sql(
                f"SELECT * FROM ({newest}) ORDER BY score, id DESC LIMIT ?", walked
            ).all()
            scored = conn.exec_driver_sql(f"SELECT {rank_extension.SCORED}()").scalar_one()
            whole = not rows or int(scored) <= window
        else:  # bm25(), or a join with the dates: the walk's rows kept, and counted
            rows = conn.exec_driver_sql(
                f"WITH newest AS MATERIALIZED ({newest}) SELECT *,"
                " (SELECT count(*) FROM newest) FROM newest ORDER BY score, id DESC LIMIT ?",
                walked,
            ).all()
            whole = not rows or rows[0][3] <= window
    else:
        rows = conn.exec_driver_sql(
            f"SELECT {columns} FROM {fts.FTS_TABLE}{joined}{_RANKED_WHERE}",
            (*given, *dated, part.match, floor, limit),
        ).all()
        whole = True
    found = {row[0]: -float(row[1]) for row in rows}
    masks = {row[0]: int(row[2]) for row in rows if row[2] is not None}
    return found, masks, whole


def _stored(when: datetime, dialect: Dialect) -> str:
    """`when` as `turns.asked_at` stores it."""
    process = UtcDateTime().bind_processor(dialect)
    return str(process(when) if process else when)

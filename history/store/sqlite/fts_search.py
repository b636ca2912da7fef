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

import math
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from history.domain import TURN_FIELDS
from history.query import stem
from history.ranking import score_bound
from history.store import search_plan
from history.store.search_plan import Ranked, Reach, Window
from history.store.sqlite import (
    best_turns,
    exact_forms,
    fts,
    listed_rest,
    rank_extension,
    word_counts,
)
from history.store.sqlite.fts_parts import Best, Part
from history.store.sqlite.reads import Sql

if TYPE_CHECKING:
    from sqlalchemy import Engine

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


class _Budget(search_plan.Budget):
    """The work one search may give FTS5, part by part: scoring the rows the part matches and,
    when bm25() ranks (not recall_bm25, which is given the counts), reading the posting list of
    every word in a MATCH (bm25 counts each word's turns). A part over what is left is ranked in
    its newest rows only; the first part always runs."""

    def __init__(
        self, frequency: dict[str, int], tag: str | None, counts_read: bool, rows: int
    ) -> None:
        super().__init__(WORK_BUDGET)
        self.frequency, self.tag, self.counts_read = frequency, tag, counts_read
        self.rows = max(rows, 1)
        self.row_cost = 1.0 if tag is None else PROJECT_ROW_COST

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

    def window(self, held: Sequence[str], any_of: Sequence[str]) -> Window[int]:
        """The part's newest rows it may rank (all of them, a number, or none), paid for."""
        reads, most = self._cost(held, any_of)
        first = self.left == WORK_BUDGET
        allowed = (self.left - reads) / self.row_cost
        self.left -= reads + most * self.row_cost  # below 0 once a part is windowed: no more
        if most <= allowed:
            return Window.whole()
        if allowed < WINDOW_ROWS and not first:
            return Window.skip()
        rows = int(max(allowed, WINDOW_ROWS))
        if self.expected(held, any_of) <= rows * LIKELY_WHOLE:
            return Window.whole()
        return Window.newest_from(rows)


class FtsSearch:
    """The search of one file, and its cached word counts. `engine`: SQLAlchemy's, for
    `search`; a process reading through the driver alone calls `search_on` (direct_search.py)."""

    def __init__(self, engine: Engine | None) -> None:
        self.engine = engine
        self._document_frequency: dict[str, int] = {}
        self._cached_at_rows = 0
        self._lock = threading.Lock()

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> Ranked:
        """The best `k` rows (with their scores) for `terms` in `project` (None: every project),
        asked at `since` or later, and whether some part was cut short."""
        assert self.engine is not None
        with self.engine.connect() as conn:
            ranked = bool(conn.connection.info.get(rank_extension.FUNCTION))
            return self.search_on(conn, ranked, terms, project, since, k)

    def search_on(
        self,
        conn: Sql,
        ranked: bool,
        terms: Sequence[str],
        project: str | None,
        since: datetime | None,
        k: int,
    ) -> Ranked:
        """`search` over `conn`, in its transaction; `ranked`: whether recall_bm25 is loaded
        into it (rank_extension.py)."""
        indexed = fts.indexed_rows(conn)
        tag = fts.project_tag(project) if project is not None else None
        frequency = self._frequencies(conn, [*terms, *([tag] if tag else [])], indexed)
        words = search_plan.Words.of(terms, frequency, indexed)
        scope = _Scope(project, tag, since, indexed)
        return _Search(conn, ranked, words, scope, k).ranked()

    def _frequencies(self, conn: Sql, terms: Sequence[str], rows: int) -> dict[str, int]:
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


class _Scope(NamedTuple):
    project: str | None
    tag: str | None  # the project's tag in the index
    since: datetime | None
    rows: int  # the turns indexed


class _Search:
    """One search, step by step: the parts rarest word first, each ranked whole, in its newest
    rows or from its word's list of best turns; then the exact-form bonus, the parts whose
    left-out turns could still pass the k-th best ranked again deeper, and the top k."""

    def __init__(
        self, conn: Sql, ranked: bool, words: search_plan.Words, scope: _Scope, k: int
    ) -> None:
        self.conn, self.words, self.scope, self.k = conn, words, scope, k
        frequency = words.frequency
        self.since = stored_time(scope.since) if scope.since is not None else None
        self.counts = frequency if ranked else None
        self.budget = _Budget(frequency, scope.tag, self.counts is None, scope.rows)
        self.ceiling = [score_bound(words.idf[term]) for term in words.ordered]
        self.best = Best(k)
        self.limit = k + exact_forms.CANDIDATES_PER_PART
        # The parts that returned all `limit` rows they were asked for: their window and cost.
        self.full: list[tuple[Part, Window[int], float]] = []
        # The common words' lists (best_turns.py): with recall_bm25, no date limit.
        self.lists = self.counts is not None and self.since is None
        self.average = fts.average_length(conn) if self.lists else 1.0
        self.last = best_turns.last_turn(conn) if self.lists else 0
        self._lists: dict[str, best_turns.BestTurns | None] = {}
        self._looked_up: set[int] = set()

    def ranked(self) -> Ranked:
        ordered = self.words.ordered
        if self._proven_by_lists(0):
            pass
        elif self.budget.fits(ordered):  # every matching turn in one ranking: the exhaustive one
            self._rank(ordered, [], [])
        else:
            self._rarest_first()
        final, proven = self._deepened()
        bounds = [score_bound(value) for value in self.words.idf.values()]
        chosen = search_plan.tied_at_kth(final, self.k)
        cut_short = self.budget.cut_short or not proven
        rows = _turns(self.conn, chosen)
        return search_plan.best_of(rows, final, self.k, bounds, cut_short)

    def _rarest_first(self) -> None:
        """Word by word, rarest first, until no turn left can pass the k-th best."""
        ordered = self.words.ordered
        for i, term in enumerate(ordered):
            if sum(self.ceiling[i:]) < self.best.bar() or (i > 0 and self._proven_by_lists(i)):
                break
            # The turns holding this word and a commoner one, then those holding it alone.
            # With bm25(), "alone" is every turn holding it (scored without the others:
            # below their real score, which the first part has): a NOT would make bm25
            # count the commoner words' turns once more.
            if later := ordered[i + 1 :]:
                self._rank([term], later, [])
            if self.ceiling[i] >= self.best.bar():
                self._rank([term], [], later if self.counts is not None else [])

    def _rank(self, held: Sequence[str], any_of: Sequence[str], without: Sequence[str]) -> None:
        cost = self.budget.cost(held, any_of)
        # A list holds one word's turns: a part of several (the whole query at once) is
        # ranked by FTS5, or the turns holding only its other words would be missed.
        alone = self.lists and len(held) == 1 and not any_of
        if alone and self._from_list(held[0], Part(held, [], self.scope.tag, without), cost):
            return
        window = self.budget.window(held, any_of)
        if window.reach is Reach.SKIP:
            self.budget.cut_short = True
            return
        part = Part(held, any_of, self.scope.tag, without)
        found, whole = self._ranked(part, window)
        self.budget.cut_short = self.budget.cut_short or not whole
        if len(found) >= self.limit:
            self.full.append((part, window, cost))

    def _ranked(
        self, part: Part, window: Window[int], floor: int = 0
    ) -> tuple[dict[int, float], bool]:
        """The part ranked by FTS5, its best kept; what it found and whether it was whole."""
        found, masks, whole = _ranked(
            self.conn, part, self.counts, self.since, self.limit, window, floor
        )
        self.best.add(found, self.limit, *part.bonus(masks, self.words.idf))
        return found, whole

    def _from_list(self, term: str, part: Part, cost: float) -> bool:
        """The turns holding `term` and no commoner query word, from its list and FTS5 after
        the list's last turn; False (nothing done) without a fresh list."""
        listed = self._fresh_list(term)
        if listed is None:
            return False
        bonus, _ = part.bonus({}, self.words.idf)
        term_idf = self.words.idf[term]
        # Each listed turn's bm25 for the word alone: a turn holding a commoner word too
        # scores more in the part that has both, and Best keeps that.
        self.best.add(listed.scores(term_idf, self.average), len(listed.turns) + 1, bonus, {})
        left_out = listed.left_out(term_idf, self.average)
        if self.scope.tag is not None and left_out > 0:
            # A project holds a twentieth of a list: it stands in for the part only if the
            # best found so far already beat all the list left out (else FTS5 ranks the part
            # as before; its listed turns' scores are their own, kept).
            if self._could_pass(left_out + bonus):
                return False
            left_out = 0.0
        deeper = left_out > 0
        if deeper:
            self.best.unseen = max(self.best.unseen, left_out + bonus)
        if self._ranked_since(part, listed.built_upto):
            deeper = True
        if deeper:  # ranked again by FTS5, whole, if the k-th best is not proven
            self.full.append((part, Window.whole(), cost))
        return True

    def _proven_by_lists(self, start: int) -> bool:
        """Whether the lists of the words from `start` on prove the top k (listed_rest.py):
        the listed turns that could pass ranked one by one, the turns added since the lists
        were built ranked whole, and the k-th best then above what any other turn scores."""
        rest = self.words.ordered[start:]
        if not self.lists or len(rest) < 2:  # one word: its own list ranks it (_from_list)
            return False
        if self.budget.cost(rest[:1], []) < listed_rest.WORTH_FROM_ROWS:
            return False
        lists: dict[str, best_turns.BestTurns] = {}
        everywhere = []
        for term in rest:
            if self.words.frequency[term] > best_turns.LIST_UP_TO_SHARE * self.scope.rows:
                everywhere.append(term)
            elif (listed := self._fresh_list(term)) is not None:
                lists[term] = listed
            else:
                return False
        if not lists:
            return False
        idf = self.words.idf
        rest_bound = listed_rest.bounded(
            lists, everywhere, idf, self.average, self.best.scores, self.k
        )
        turns = [turn for turn in rest_bound.could_pass if turn not in self._looked_up]
        if len(turns) > listed_rest.MOST_LOOKED_UP:
            return False
        if turns:
            self._looked_up.update(turns)
            whole = Part(self.words.ordered, [], self.scope.tag)
            assert self.counts is not None  # the lists are read with recall_bm25 alone
            found, masks = listed_rest.ranked(self.conn, whole, self.counts, turns)
            self.best.add(found, len(found) + 1, *whole.bonus(masks, idf))
        part = Part(rest, [], self.scope.tag)
        if self._ranked_since(part, min(listed.built_upto for listed in lists.values())):
            self.full.append((part, Window.whole(), self.budget.cost(rest, [])))
        if self._could_pass(rest_bound.unseen):
            return False
        self.best.unseen = max(self.best.unseen, rest_bound.unseen)
        return True

    def _ranked_since(self, part: Part, upto: int) -> bool:
        """The part's turns after `upto` (recorded since a list was built) ranked whole, and
        whether they filled the part's LIMIT (its left-out turns may pass: it is ranked again)."""
        if upto >= self.last:
            return False
        found, _ = self._ranked(part, Window.whole(), floor=upto)
        return len(found) >= self.limit

    def _fresh_list(self, term: str) -> best_turns.BestTurns | None:
        """The word's list of best turns, if it has one and what was added since fits (read
        once a search)."""
        if term not in self._lists:
            self._lists[term] = self._read_list(term)
        return self._lists[term]

    def _read_list(self, term: str) -> best_turns.BestTurns | None:
        frequency = self.words.frequency[term]
        if frequency < best_turns.LIST_FROM_ROWS:
            return None
        listed = best_turns.read(self.conn, stem(term), self.scope.project)
        if listed is None:
            return None
        after = frequency * max(self.last - listed.built_upto, 0) / max(self.last, 1)
        return listed if self.budget.again(after * self.budget.row_cost) else None

    def _could_pass(self, unseen: float) -> bool:
        """Whether a turn scoring `unseen` with its bonus could pass the k-th best found."""
        final, _ = self._with_bonus(-math.inf)
        return exact_forms.unseen_could_pass(final, unseen, self.k)

    def _deepened(self) -> tuple[dict[int, float], bool]:
        """The scores with their bonus, and whether the top k is proven. A turn some part left
        below its LIMIT could still pass the k-th best with its bonus: those parts again, four
        times deeper, while the budget allows."""
        final, proven = self._with_bonus(self.best.unseen)
        while not proven and self.full and self.limit < exact_forms.DEEPEST:
            if not exact_forms.unseen_could_pass(final, self.best.unseen, self.k):
                break
            again, self.full = self.full, []
            if not self.budget.again(sum(cost for *_, cost in again)):
                break
            self.limit, self.best.unseen = min(self.limit * 4, exact_forms.DEEPEST), -math.inf
            for part, window, cost in again:
                found, _ = self._ranked(part, window)
                if len(found) >= self.limit:
                    self.full.append((part, window, cost))
            final, proven = self._with_bonus(self.best.unseen)
        return final, proven

    def _with_bonus(self, unseen: float) -> tuple[dict[int, float], bool]:
        return exact_forms.with_bonus(
            self.conn,
            self.words.terms,
            self.words.idf,
            self.best.scores,
            self.best.reach(),
            unseen,
            self.k,
        )


def _ranked(
    conn: Sql,
    part: Part,
    counts: dict[str, int] | None,
    since: str | None,
    limit: int,
    window: Window[int],
    floor: int = 0,
) -> tuple[dict[int, float], dict[int, int], bool]:
    """The best `limit` turns (rowid: score) of `part`, in its `window` (its newest n turns:
    one more is walked to learn whether more match) and after `floor`, ranked by bm25 over its
    words; with recall_bm25, which of the part's phrases each holds (rowid: bit mask); and
    whether that was all of them (the window held every match).
    Plain SQL: a search runs several of these, and building each through SQLAlchemy cost more
    than a small one takes to run."""
    function, given = part.ranking(counts, limit)
    phrases = f"{rank_extension.PHRASES}({fts.FTS_TABLE})" if counts is not None else "NULL"
    columns = f"{fts.FTS_TABLE}.rowid AS id, {function} AS score, {phrases}"
    joined = _SINCE if since is not None else ""
    dated = (since,) if since is not None else ()
    rows: Sequence[Any]
    if window.newest is not None:
        # The newest window + 1 matches, scored in the same walk (FTS5 goes newest first and
        # stops there), then the best of them: whole when no more than `window` matched.
        newest = f"SELECT {columns} FROM {fts.FTS_TABLE}{joined}{_NEWEST_WHERE}"
        walked = (*given, *dated, part.match, floor, window.newest + 1, limit)
        rows, matched = _walked(conn, newest, walked, counts is not None and since is None)
        whole = not rows or matched <= window.newest
    else:
        rows = conn.exec_driver_sql(
            f"SELECT {columns} FROM {fts.FTS_TABLE}{joined}{_RANKED_WHERE}",
            (*given, *dated, part.match, floor, limit),
        ).all()
        whole = True
    found = {row[0]: -float(row[1]) for row in rows}
    masks = {row[0]: int(row[2]) for row in rows if row[2] is not None}
    return found, masks, whole


def _walked(
    conn: Sql, newest: str, walked: tuple[Any, ...], scored: bool
) -> tuple[Sequence[Any], int]:
    """The best rows of the walk `newest`, and how many rows it matched."""
    if scored:
        # recall_scored() counts the walk: each row it took was scored once (no row, no call).
        rows = conn.exec_driver_sql(
            f"SELECT * FROM ({newest}) ORDER BY score, id DESC LIMIT ?", walked
        ).all()
        matched = conn.exec_driver_sql(f"SELECT {rank_extension.SCORED}()").scalar_one()
        return rows, int(matched)
    # bm25(), or a join with the dates: the walk's rows kept, and counted.
    rows = conn.exec_driver_sql(
        f"WITH newest AS MATERIALIZED ({newest}) SELECT *,"
        " (SELECT count(*) FROM newest) FROM newest ORDER BY score, id DESC LIMIT ?",
        walked,
    ).all()
    return rows, int(rows[0][3]) if rows else 0


def stored_time(when: datetime) -> str:
    """`when` as `turns.asked_at` stores it: naive UTC text (models.UtcDateTime, as SQLAlchemy's
    SQLite DATETIME writes it)."""
    if when.tzinfo is None:
        raise ValueError("asked_at must be timezone-aware")
    return when.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


_TURN_ROWS = f"SELECT id, {', '.join(TURN_FIELDS)} FROM turns WHERE id IN "
_ASKED_AT = 1 + TURN_FIELDS.index("asked_at")
_TAINTED = 1 + TURN_FIELDS.index("tainted")


def _turns(conn: Sql, ids: Sequence[int]) -> list[tuple[Any, ...]]:
    """The rows `ids` whole (the row id first, then the turn's fields), read as SQLAlchemy
    reads them through models.Turn: the time timezone-aware UTC, the flag a bool."""
    found: list[tuple[Any, ...]] = []
    for start in range(0, len(ids), 500):
        chunk = tuple(ids[start : start + 500])
        marks = ", ".join("?" for _ in chunk)
        for row in conn.exec_driver_sql(f"{_TURN_ROWS}({marks})", chunk):
            values = list(row)
            values[_ASKED_AT] = datetime.fromisoformat(values[_ASKED_AT]).replace(tzinfo=UTC)
            values[_TAINTED] = bool(values[_TAINTED])
            found.append(tuple(values))
    return found

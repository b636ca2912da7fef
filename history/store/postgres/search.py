"""Full-text search on PostgreSQL: the exact top k of an idf-weighted ts_rank without ranking
every turn that holds a common word, and a bounded cost when that is not enough.

A turn's score is the sum, over the query's words, of the word's idf times `ts_rank` of the
turn's `search_vector` for that word alone (the question weighs 1, file names 0.4, the answer
0.3, the work 0.15): ts_rank by itself counts every word alike, so a turn full of a common word
would rank with one that holds the rare word the user is after. The vector holds the question's
positions first, then the file names', then the answer's, then the work's, and ts_rank weighs a
word's occurrences by 1/n² in that order: a word in the question scores under HEAD_CEILING, a
word only elsewhere under TAIL_CEILING. So the search looks first at the turns holding a query
word in their question (found by their own index, schema.ASKED_INDEX), rarest word first, then
at the rest, each part ranked with every query word; once the k-th best score found beats what
any turn not yet seen can score, no turn left can enter the top k and the search stops. Before
that, a part whose own word cannot pass the k-th best score asks only for its turns that also
hold enough of the other query words (search_bounds.py): the GIN indexes pick those out, and no
other row is read. In one project, every part but the repeats' asks the index of each turn's
words within its project (project_index.py), whose lists hold that project's turns only.

What a search costs is the rows it ranks: each is a heap page (the vector is stored MAIN,
inline), read from the OS's cache when shared buffers (128 MB by default) do not hold it, and
GIN gives no order to stop early in. So a search ranks about WORK_BUDGET rows at most (fewer in
one project). A part with more rows than are left is ranked in its newest turns only, the result
says so (`approximate`), and bench/RESULTS.md measures the overlap with the exhaustive ranking.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, select, text

from history.folding import strip_marks
from history.ranking import idf, share_of_best
from history.store.models import TURN_COLUMNS, Turn
from history.store.postgres import project_index, question_index, schema
from history.store.postgres.question_index import ONCE_CEILING
from history.store.postgres.search_bounds import (
    HEAD_CEILING,
    company,
    enough_words,
    share_holding,
)
from history.store.postgres.search_scope import Budget, Scope
from history.store.postgres.statistics import WordCounts
from history.store.rows import Ranked

# ts_rank's weights, {D, C, B, A}: the work (and the project tag, which only narrows: no query
# word is a tag), the answer, the file names, the question. The work weighs half the answer, as
# on SQLite (history.ranking.COLUMN_WEIGHTS).
WEIGHTS = "{0.15, 0.3, 0.4, 1.0}"
# The scale of Hit.score: the most one word's ts_rank is taken to reach.
RANK_CEILING = 1.5
# Rows one search may rank (in one project fewer, for its tighter target); a part past what is
# left is ranked in its newest turns, about WINDOW_ROWS of them at least.
WORK_BUDGET = 3_000
PROJECT_SHARE_OF_BUDGET = 0.4
WINDOW_ROWS = 300
# When all the scope's matching turns are about this many at most, one statement ranks them all:
# exact, and one round trip instead of a few (a project's matches often are few).
ONE_STATEMENT_ROWS = 1_000
# Of a part's rows, the share holding the word in the question (measured at 1M turns: 0.22).
HEAD_SHARE = 0.25
# Of the turns holding a word in their question, the share repeating it there (at 1M: 0.12 on
# average, 0.2-0.3 for the commonest words); the turns repeating query words are ranked in one
# part when they fit in this share of what is left of the budget.
REPEAT_SHARE = 0.2
REPEATS_SHARE_OF_BUDGET = 0.5
V = schema.VECTOR_COLUMN
QUESTION = question_index.QUESTION_WORDS
IN_PROJECT = project_index.PROJECT_WORDS
_ASKED_AT = [c.key for c in TURN_COLUMNS].index("asked_at")


def score_expression(count: int) -> str:
    """SQL for the score of a row, given the words `:w0`.. and their idf `:i0`.."""
    return " + ".join(
        f"CAST(:i{n} AS float8) * ts_rank('{WEIGHTS}', {V}, {schema.word_query(f':w{n}')})"
        for n in range(count)
    )


def plain_word(n: int) -> str:
    """SQL for the tsquery of the word `:w<n>` in the whole table's indexes."""
    return schema.word_query(f":w{n}")


def any_of(
    indices: Sequence[int], asked: bool = False, word: Callable[[int], str] = plain_word
) -> str:
    """SQL for a tsquery matching any of the words `:w<n>` for n in `indices` (each word's
    tsquery from `word`); with `asked`, in the question only (weight A of the vector)."""
    if asked:
        return " || ".join(
            f"to_tsquery('{schema.CONFIG}', quote_literal(:w{n}) || '\\:A')" for n in indices
        )
    return " || ".join(word(n) for n in indices)


def all_of_one(sets: Sequence[tuple[int, ...]], word: Callable[[int], str] = plain_word) -> str:
    """SQL for a tsquery matching the turns that hold every word of one of `sets` (each a
    tuple of indices n of the words `:w<n>`)."""
    return " || ".join("(" + " && ".join(word(n) for n in words) + ")" for words in sets)


def two_of(count: int, word: Callable[[int], str] = plain_word) -> str:
    """SQL for a tsquery matching any two of the words `:w0`.. (`count` of them)."""
    return " || ".join(
        f"({word(a)} && {word(b)})" for a, b in itertools.combinations(range(count), 2)
    )


def _anywhere_in_project(n: int) -> str:
    return project_index.word_query(f":w{n}", ":anywhere")


def _asked_in_project(n: int) -> str:
    return project_index.word_query(f":w{n}", ":asked")


class TsvectorSearch:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.counts = WordCounts()

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> Ranked:
        # The column holds words with every mark dropped (`recall_words`); a query word keeps
        # the marks of non-Latin letters (`й`), as FTS5 does.
        terms = list(dict.fromkeys(strip_marks(term) for term in terms))
        with self.engine.connect() as conn:
            rows, frequency = self.counts.rows_and_counts(conn, terms)
            ordered = sorted(terms, key=lambda term: frequency[term])
            weight = {term: idf(max(rows, 1), frequency[term]) for term in ordered}
            part = _Part(ordered, weight, project, since, k)
            scope = Scope.of(conn, project, since, rows)
            left = WORK_BUDGET * (PROJECT_SHARE_OF_BUDGET if project is not None else 1.0)
            budget = Budget(left, scope)
            counts = [frequency[term] for term in ordered]
            spread = counts
            if project is not None and scope.whole > 0:
                spread = _as_if_spread(
                    counts, ordered, self.counts.in_project(conn, project, ordered), scope.whole
                )
            # A project's own identifier is in many more of its turns than its share says: one
            # statement would rank them all. The parts, though, still plan by the share: a
            # window sized by the larger count is one the planner does not apply (its estimate
            # of the GIN condition is the share's, so it skips the window's btree and reads
            # every match), and a window on the first part loosens every later bound (measured
            # at 1M: overlap 0.971 instead of 0.989, p95 no better).
            if sum(spread) * scope.share <= min(ONE_STATEMENT_ROWS, left):
                best = part.every_match(conn)
            else:
                part.repeatable = self.counts.single_lexemes(conn, ordered)
                best = _in_parts(conn, part, counts, rows, budget, k)
            # Ties go to the newer turn; only the k shown are read whole (their answers are
            # out of line, in TOAST: a few pages each).
            top = heapq.nlargest(k, best, key=lambda rowid: (best[rowid], part.asked_at[rowid]))
            # In one project, the project's partition only (revision 0019): a search never
            # waits for another project's partition being rewritten by a forget.
            shown = [Turn.id.in_(top)] + ([] if project is None else [Turn.project == project])
            found = conn.execute(select(Turn.id, *TURN_COLUMNS).where(*shown))
            scored: list[tuple[Any, float]] = [(row[1:], best[row[0]]) for row in found]
        scored.sort(key=lambda pair: (-pair[1], -pair[0][_ASKED_AT].timestamp()))
        ceiling = [w * RANK_CEILING for w in part.weights]
        return Ranked(
            [(row, share_of_best(score, ceiling)) for row, score in scored[:k]], budget.cut_short
        )


def _as_if_spread(
    counts: list[int], ordered: Sequence[str], in_project: dict[str, int], whole: float
) -> list[int]:
    """Each word's turns everywhere, or, for a word common in the project, the count that
    spread like the project's turns would put that many in it (the project's share of a count
    is what the one-statement path is chosen by)."""
    return [
        max(count, round(min(in_project.get(term, 0), count) / whole))
        for count, term in zip(counts, ordered, strict=True)
    ]


def _in_parts(
    conn: Connection, part: _Part, counts: list[int], rows: int, budget: Budget, k: int
) -> dict[int, float]:
    """The best rows, part by part, until no turn left can reach the top k or the budget is
    spent (`counts`: the turns holding each word, rarest first)."""
    best: dict[int, float] = {}
    share = budget.scope.share
    # Every project: first the turns holding two query words or more in their question (few),
    # which set the bar every turn holding one must pass. One project: after the repeats (its
    # own identifiers' words come together in thousands of its questions).
    heads = [count * HEAD_SHARE for count in counts]
    pairs = sum(a * b for a, b in itertools.combinations(heads, 2)) / max(rows, 1)
    alone = False
    pairs_first = part.project is None
    if pairs_first and len(counts) > 1:
        after = budget.window(pairs * share, WINDOW_ROWS)
        best.update(part.ranked(conn, -1, True, after))
        alone = after is None
    # Then the turns repeating a query word in their question (few): once they are all ranked,
    # a turn holding a word once in its question scores at most ONCE_CEILING for it.
    # Rarest first, the words whose repeats fit in a share of what is left of the budget.
    question, expected = None, 0.0
    for i, head in enumerate(heads):
        more = head * share * REPEAT_SHARE
        if part.repeatable[i] and expected + more <= budget.left * REPEATS_SHARE_OF_BUDGET:
            part.repeating[i], expected = True, expected + more
    if any(part.repeating):
        after = budget.window(expected, WINDOW_ROWS)
        best.update(part.repeated(conn, after))
        if after is None:
            part.repeats_ranked = True
            question = [ONCE_CEILING if one else HEAD_CEILING for one in part.repeating]
    if not pairs_first and len(counts) > 1:
        # Past the bar the repeats set, only the turns holding enough of the words can enter.
        bar = heapq.nlargest(k, best.values())[-1] if len(best) >= k else 0.0
        enough = enough_words(part.weights, bar, question)
        alone = True  # none of those turns left out can pass the bar, now or later
        if enough != []:
            expected = pairs * share
            if enough is not None:
                expected *= share_holding(enough, counts, rows)
            after = budget.window(expected, WINDOW_ROWS)
            best.update(part.ranked(conn, -1, True, after, needed=enough))
            alone = after is None
    for i, head in [(i, head) for head in (True, False) for i in range(len(counts))]:
        bar = heapq.nlargest(k, best.values())[-1] if len(best) >= k else 0.0
        needed = company(part.weights, i, head, alone, bar, question)
        if needed == []:
            if head:
                continue  # the tails' bound may be lower still
            break
        expected = counts[i] * share * (HEAD_SHARE if head else 1.0 - HEAD_SHARE)
        if needed is not None:
            expected *= share_holding(needed, counts, rows)
        after = budget.window(expected, WINDOW_ROWS)
        best.update(part.ranked(conn, i, head, after, alone, needed))
    return best


class _Part:
    """The statement ranking the turns whose first query word, rarest first, is the i-th: in
    their question (a head part), or anywhere once every question was looked at (a tail)."""

    def __init__(
        self,
        ordered: Sequence[str],
        weight: dict[str, float],
        project: str | None,
        since: datetime | None,
        k: int,
    ) -> None:
        self.ordered, self.project = ordered, project
        self.weights = [weight[term] for term in ordered]
        self.asked_at: dict[int, datetime] = {}  # of every row ranked, for ties
        # Which words the question's index holds the repeats of; of those, the words whose
        # repeating turns are ranked in a part of their own, and whether they were all ranked
        # (then the head parts leave them out).
        self.repeatable = [False] * len(ordered)
        self.repeating = [False] * len(ordered)
        self.repeats_ranked = False
        self.params: dict[str, Any] = {"limit": k}  # each part orders ties by time
        for n, term in enumerate(ordered):
            self.params[f"w{n}"] = term
            self.params[f"i{n}"] = weight[term]
        self.scope, self.tag = "", ""
        if project is not None:
            # The repeats' part asks the question's index, its lists short: one tsquery with
            # the word, so GIN skips through the tag's long list to the word's. Every other
            # part asks the project's own index (project_index.py).
            self.tag = " && CAST(:tag AS tsquery)"
            self.params["tag"] = schema.project_tag(project)  # 'p' and hex digits: one lexeme
            self.params["anywhere"] = project_index.prefix(project, project_index.ANYWHERE)
            self.params["asked"] = project_index.prefix(project, project_index.ASKED)
            # The planner keeps only the project's partition of `turns` (revision 0019).
            self.scope += " AND project = :project"
            self.params["project"] = project
        if since is not None:
            self.scope += " AND asked_at >= :since"
            self.params["since"] = since.astimezone(UTC).replace(tzinfo=None)

    def every_match(self, conn: Connection) -> dict[int, float]:
        """The best rows of every turn holding a query word, in one statement."""
        every = range(len(self.ordered))
        if self.project is not None:
            where = f"{IN_PROJECT} @@ ({any_of(every, word=_anywhere_in_project)}){self.scope}"
        else:
            where = f"{V} @@ ({any_of(every)}){self.scope}"
        return self._best(conn, where, dict(self.params))

    def repeated(self, conn: Connection, after: datetime | None) -> dict[int, float]:
        """The best rows of the turns repeating a query word in their question."""
        params = dict(self.params) | {"repeats": self._repeats()}
        where = f"{QUESTION} @@ (CAST(:repeats AS tsquery){self.tag}){self.scope}"
        return self._best(conn, where + self._window(after, params), params)

    def _repeats(self) -> str:
        single = zip(self.ordered, self.repeating, strict=True)
        return question_index.repeats_query(term for term, one in single if one)

    def ranked(
        self,
        conn: Connection,
        i: int,
        head: bool,
        after: datetime | None,
        alone: bool = False,
        needed: Sequence[tuple[int, ...]] | None = None,
    ) -> dict[int, float]:
        """The part's best rows; with `after`, among the turns asked after it only. Part -1:
        the turns holding two query words or more in their question. `alone`: those were all
        ranked, so a head part leaves them out. `needed`: the sets of other words of which a
        turn must hold one to be ranked (search_bounds.company; for part -1, in one project,
        the sets of query words of search_bounds.enough_words)."""
        if self.project is not None:
            return self._ranked_in_project(conn, i, head, after, alone, needed)
        params = dict(self.params)
        count = len(self.ordered)
        word = schema.word_query(f":w{i}")
        # GIN intersects the word's list with its company's inside one scan, skipping through
        # the longer lists; a bitmap of every turn holding a common companion would cost more
        # than the rows it spares.
        company = f" && ({all_of_one(needed)})" if needed else ""
        if i < 0:
            where = f"{QUESTION} @@ (({two_of(count)}){self.tag}){self.scope}"
        elif head:
            # The question's own index leaves out the turns a part before ranked, unread.
            others = [n for n in range(count) if n != i] if alone else list(range(i))
            unless = f" && !!({any_of(others)})" if others else ""
            if self.repeats_ranked:
                unless += " && !!CAST(:repeats AS tsquery)"
                params["repeats"] = self._repeats()
            where = f"{QUESTION} @@ ({word}{unless}{self.tag}){self.scope}"
            if company:
                where += f" AND {V} @@ ({word}{company}{self.tag})"
        else:
            unless = f" && !!({any_of(range(i))})" if i else ""
            where = f"{V} @@ ({word}{unless}{company}{self.tag})"
            where += f" AND NOT {V} @@ ({any_of(range(count), asked=True)}){self.scope}"
        return self._best(conn, where + self._window(after, params), params)

    def _ranked_in_project(
        self,
        conn: Connection,
        i: int,
        head: bool,
        after: datetime | None,
        alone: bool,
        needed: Sequence[tuple[int, ...]] | None,
    ) -> dict[int, float]:
        """`ranked` in one project: every condition in one tsquery on the project's own index,
        whose lists hold the project's turns only. The turns repeating a word, ranked before,
        are not left out here (that index does not hold the repeats): a part may rank some of
        them again, with the same score, and its top k stays a top k."""
        params = dict(self.params)
        count = len(self.ordered)
        anywhere, asked = _anywhere_in_project, _asked_in_project
        company = f" && ({all_of_one(needed, word=anywhere)})" if needed else ""
        if i < 0:
            condition = f"({two_of(count, word=asked)}){company}"
        elif head:
            others = [n for n in range(count) if n != i] if alone else list(range(i))
            unless = f" && !!({any_of(others, word=asked)})" if others else ""
            condition = f"{asked(i)}{unless}{company}"
        else:
            unless = f" && !!({any_of(range(i), word=anywhere)})" if i else ""
            condition = f"{anywhere(i)}{unless} && !!({any_of(range(count), word=asked)}){company}"
        where = f"{IN_PROJECT} @@ ({condition}){self.scope}"
        return self._best(conn, where + self._window(after, params), params)

    def _window(self, after: datetime | None, params: dict[str, Any]) -> str:
        """With `after`, the SQL keeping the turns asked after it only: a btree narrows to the
        newest turns (of the project) before any row is read."""
        if after is None:
            return ""
        params["after"] = after
        if self.project is None:
            return " AND asked_at >= :after"
        params["project"] = self.project
        return " AND asked_at >= :after AND project = :project"

    def _best(self, conn: Connection, where: str, params: dict[str, Any]) -> dict[int, float]:
        statement = (
            f"SELECT id, {score_expression(len(self.ordered))} AS score, asked_at FROM turns"
            f" WHERE {where} ORDER BY score DESC, asked_at DESC LIMIT :limit"
        )
        best = {}
        for rowid, score, asked_at in conn.execute(text(statement), params):
            best[rowid] = float(score)
            self.asked_at[rowid] = asked_at
        return best

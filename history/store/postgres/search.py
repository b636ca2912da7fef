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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, Engine, text

from history.folding import strip_marks
from history.store import search_plan
from history.store.postgres import project_index, question_index, rewriting, schema, word_texts
from history.store.postgres.engine import prepared_at_first_run
from history.store.postgres.question_index import ONCE_CEILING
from history.store.postgres.search_bounds import (
    HEAD_CEILING,
    company,
    enough_words,
    share_holding,
)
from history.store.postgres.search_scope import Budget, Scope
from history.store.postgres.statistics import WordCounts
from history.store.postgres.word_texts import WordTexts, both, either, negated
from history.store.rows import Ranked
from history.store.search_plan import Reach, Window

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
# `turns` is 64 partitions (revision 0019): planning a statement over all of them costs 6-14 ms
# at 1M turns (bench/RESULTS.md), as much as running it, and a search runs a few. Every statement
# of an every-project search is prepared on its first run (psycopg's default is the fifth), and
# runs the plan its connection made the first time for the same SQL (a generic plan: the same
# scans of every partition's index, whatever the words). The words' tsqueries are values, not
# SQL (word_texts.py), so the SQL differs only by the number of words and the indexes a part
# asks: at 1M, 300 searches ran 37 kinds of statement (90 with each arrangement of words a
# statement of its own, whose first runs set the every-project p95). A one-project search is
# planned for its values: the planner keeps its project's partition only, so it never waits for
# another partition being rewritten by a forget (a generic plan would lock every partition it
# names).
EVERY_PROJECT_PLANS = "force_generic_plan"
ONE_PROJECT_PLANS = "force_custom_plan"
V = schema.VECTOR_COLUMN
QUESTION = question_index.QUESTION_WORDS
IN_PROJECT = project_index.PROJECT_WORDS


def score_expression(count: int) -> str:
    """SQL for the score of a row, given the words `:w0`.. and their idf `:i0`.."""
    return " + ".join(
        f"CAST(:i{n} AS float8) * ts_rank('{WEIGHTS}', {V}, {schema.word_query(f':w{n}')})"
        for n in range(count)
    )


def plain_word(n: int) -> str:
    """SQL for the tsquery of the word `:w<n>` in the whole table's indexes."""
    return schema.word_query(f":w{n}")


def any_of(indices: Sequence[int]) -> str:
    """SQL for a tsquery matching any of the words `:w<n>` for n in `indices`: the exhaustive
    ranking's (bench/postgres.py, tests/helpers/pg_oracle.py); the search binds its tsqueries
    as values (word_texts.py)."""
    return " || ".join(plain_word(n) for n in indices)


def _any(texts: Sequence[str], indices: Iterable[int]) -> str:
    """A tsquery's text matching any of the words at `indices` (each word's in `texts`)."""
    return either(texts[n] for n in indices)


def _all_of_one(texts: Sequence[str], sets: Sequence[tuple[int, ...]]) -> str:
    """A tsquery's text matching the turns that hold every word of one of `sets`."""
    return either(both(*(texts[n] for n in words)) for words in sets)


def _two_of(texts: Sequence[str], count: int) -> str:
    """A tsquery's text matching any two of the first `count` words."""
    return either(both(texts[a], texts[b]) for a, b in itertools.combinations(range(count), 2))


def _bound(params: dict[str, Any], query: str) -> str:
    """SQL for the tsquery `query` (its text), bound as a value of its own in `params`."""
    name = f"tsq{sum(1 for key in params if key.startswith('tsq'))}"
    params[name] = query
    return f"CAST(:{name} AS tsquery)"


class TsvectorSearch:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.counts = WordCounts()

    def search(
        self,
        terms: Sequence[str],
        project: str | None,
        since: datetime | None,
        k: int,
        skipping: Sequence[str] = (),
    ) -> Ranked:
        """`skipping`: partitions a forget's scrub holds, left out (rewriting.py); the answer
        then says it is partial."""
        # The column holds words with every mark dropped (`recall_words`); a query word keeps
        # the marks of non-Latin letters (`й`), as FTS5 does.
        terms = list(dict.fromkeys(strip_marks(term) for term in terms))
        with (
            self.engine.connect() as conn,
            _planned(conn, project),
            rewriting.leaving_out(conn, skipping),
        ):
            rows, frequency = self.counts.rows_and_counts(conn, terms)
            words = search_plan.Words.of(terms, frequency, max(rows, 1))
            ordered = words.ordered
            texts = word_texts.read(conn, ordered, project)
            part = _Part(ordered, words.idf, project, since, k, _in(project, texts))
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
                best = _InParts(conn, part, counts, rows, budget, k).ranked()
            # Ties go to the newer turn; only the k shown are read whole (their answers are
            # out of line, in TOAST: a few pages each).
            top = heapq.nlargest(k, best, key=lambda rowid: (best[rowid], part.asked_at[rowid]))
            ceiling = [w * RANK_CEILING for w in part.weights]
            # In one project, the project's partition only (revision 0019): a search never
            # waits for another project's partition being rewritten by a forget.
            found = search_plan.top_k(conn, best, top, k, ceiling, budget.cut_short, project)
            return found._replace(partial=bool(skipping))


@contextmanager
def _planned(conn: Connection, project: str | None) -> Iterator[None]:
    """The search's statements planned as EVERY_PROJECT_PLANS or ONE_PROJECT_PLANS say. The
    search ends with a COMMIT: psycopg forgets every statement it prepared on a ROLLBACK (which
    is how the pool would end it), and with them their plans."""
    plans = EVERY_PROJECT_PLANS if project is None else ONE_PROJECT_PLANS
    # How long a statement waits for a partition being rewritten before the search leaves it
    # out (rewriting.py); in the same round trip as the plans.
    waits = f"SET LOCAL lock_timeout = {rewriting.SEARCH_WAIT_MS}"
    conn.exec_driver_sql(f"SET LOCAL plan_cache_mode = {plans}; {waits}" if plans else waits)
    with prepared_at_first_run(conn) if project is None and plans else nullcontext():
        yield
    conn.commit()


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


class _InParts:
    """The best rows, part by part, until no turn left can reach the top k or the budget is
    spent (`counts`: the turns holding each word, rarest first)."""

    def __init__(
        self, conn: Connection, part: _Part, counts: list[int], rows: int, budget: Budget, k: int
    ) -> None:
        self.conn, self.part, self.counts, self.rows, self.budget, self.k = (
            conn,
            part,
            counts,
            rows,
            budget,
            k,
        )
        self.best: dict[int, float] = {}
        self.share = budget.scope.share
        self.heads = [count * HEAD_SHARE for count in counts]
        self.pairs = sum(a * b for a, b in itertools.combinations(self.heads, 2)) / max(rows, 1)
        # Whether the turns holding two query words or more in their question were all ranked.
        self.alone = False
        # The most each word scores in a head part's question, once the repeats were ranked.
        self.question: list[float] | None = None

    def ranked(self) -> dict[int, float]:
        # Every project: first the turns holding two query words or more in their question
        # (few), which set the bar every turn holding one must pass. One project: after the
        # repeats (its own identifiers' words come together in thousands of its questions).
        pairs_first = self.part.project is None
        several = len(self.counts) > 1
        if pairs_first and several:
            self.alone = self._rank(self.pairs * self.share, -1, True).reach is Reach.ALL
        self._repeats()
        if not pairs_first and several:
            self._enough_words()
        self._word_by_word()
        return self.best

    def _rank(
        self,
        expected: float,
        i: int,
        head: bool,
        alone: bool = False,
        needed: Sequence[tuple[int, ...]] | None = None,
    ) -> Window[datetime]:
        """Part (i, head) of about `expected` rows, ranked in the window the budget allows."""
        window = self.budget.window(expected, WINDOW_ROWS)
        self.best.update(self.part.ranked(self.conn, i, head, window, alone, needed))
        return window

    def _repeats(self) -> None:
        """The turns repeating a query word in their question (few): once they are all ranked,
        a turn holding a word once in its question scores at most ONCE_CEILING for it. Rarest
        first, the words whose repeats fit in a share of what is left of the budget."""
        part, expected = self.part, 0.0
        for i, head in enumerate(self.heads):
            more = head * self.share * REPEAT_SHARE
            if part.repeatable[i] and expected + more <= self.budget.left * REPEATS_SHARE_OF_BUDGET:
                part.repeating[i], expected = True, expected + more
        if not any(part.repeating):
            return
        window = self.budget.window(expected, WINDOW_ROWS)
        self.best.update(part.repeated(self.conn, window))
        if window.reach is Reach.ALL:
            part.repeats_ranked = True
            self.question = [ONCE_CEILING if one else HEAD_CEILING for one in part.repeating]

    def _enough_words(self) -> None:
        """Past the bar the repeats set, only the turns holding enough of the words can enter:
        of the turns holding two or more in their question, those."""
        enough = enough_words(self.part.weights, self._bar(), self.question)
        self.alone = True  # none of those turns left out can pass the bar, now or later
        if enough == []:
            return
        expected = self.pairs * self.share
        if enough is not None:
            expected *= share_holding(enough, self.counts, self.rows)
        self.alone = self._rank(expected, -1, True, needed=enough).reach is Reach.ALL

    def _word_by_word(self) -> None:
        """Each word's head part, rarest first, then each one's tail, while a turn of the part
        can still pass the k-th best."""
        for i, head in [(i, head) for head in (True, False) for i in range(len(self.counts))]:
            needed = company(self.part.weights, i, head, self.alone, self._bar(), self.question)
            if needed == []:
                if head:
                    continue  # the tails' bound may be lower still
                break
            expected = self.counts[i] * self.share * (HEAD_SHARE if head else 1.0 - HEAD_SHARE)
            if needed is not None:
                expected *= share_holding(needed, self.counts, self.rows)
            self._rank(expected, i, head, self.alone, needed)

    def _bar(self) -> float:
        return search_plan.kth_best(self.best.values(), self.k)


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
        words: _WholeTable | _ProjectWords,
    ) -> None:
        """`words`: where the parts' conditions are asked (the repeats' part asks the
        question's index), with the words' tsqueries (word_texts.py)."""
        self.ordered, self.project, self.words = ordered, project, words
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
            self.tag = f"'{schema.project_tag(project)}'"  # 'p' and hex digits: one lexeme
            # The planner keeps only the project's partition of `turns` (revision 0019).
            self.scope += " AND project = :project"
            self.params["project"] = project
        if since is not None:
            self.scope += " AND asked_at >= :since"
            self.params["since"] = since.astimezone(UTC).replace(tzinfo=None)

    def every_match(self, conn: Connection) -> dict[int, float]:
        """The best rows of every turn holding a query word, in one statement."""
        params = dict(self.params)
        column = V if self.project is None else IN_PROJECT
        matching = _any(self.words.anywhere, range(len(self.ordered)))
        return self._best(conn, f"{column} @@ {_bound(params, matching)}{self.scope}", params)

    def repeated(self, conn: Connection, window: Window[datetime]) -> dict[int, float]:
        """The best rows of the turns repeating a query word in their question."""
        params = dict(self.params)
        where = f"{QUESTION} @@ {_bound(params, both(self._repeats(), self.tag))}{self.scope}"
        return self._best(conn, where + self._window(window, params), params)

    def _repeats(self) -> str:
        single = zip(self.ordered, self.repeating, strict=True)
        return question_index.repeats_query(term for term, one in single if one)

    def ranked(
        self,
        conn: Connection,
        i: int,
        head: bool,
        window: Window[datetime],
        alone: bool = False,
        needed: Sequence[tuple[int, ...]] | None = None,
    ) -> dict[int, float]:
        """The part's best rows in `window`. Part -1: the turns holding two query words or more
        in their question. `alone`: those were all ranked, so a head part leaves them out.
        `needed`: the sets of other words of which a turn must hold one to be ranked
        (search_bounds.company; for part -1, in one project, the sets of query words of
        search_bounds.enough_words)."""
        words, count = self.words, len(self.ordered)
        company = _all_of_one(words.anywhere, needed) if needed else ""
        if i < 0:
            condition = _Condition(_two_of(words.asked, count), company)
        elif head:
            # The question's index leaves out the turns a part before ranked, unread.
            others = [n for n in range(count) if n != i] if alone else list(range(i))
            unless = negated(_any(words.asked, others))
            ranked = self.repeats_ranked
            condition = _Condition(both(words.asked[i], unless), company, i, ranked)
        else:
            unless = negated(_any(words.anywhere, range(i)))
            condition = _Condition("", both(words.anywhere[i], unless, company), none_asked=True)
        params = dict(self.params)
        repeats = self._repeats() if condition.unless_repeats and words.holds_repeats else ""
        where = words.where(condition, count, self.tag, repeats, params) + self.scope
        return self._best(conn, where + self._window(window, params), params)

    def _window(self, window: Window[datetime], params: dict[str, Any]) -> str:
        """In a window, the SQL keeping its turns only: a btree narrows to the newest turns (of
        the project) before any row is read."""
        if window.newest is None:
            return ""
        params["after"] = window.newest
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


class _Condition(NamedTuple):
    """What a part's turns hold, as tsqueries of the words of the index asked: `question`, in
    their question ("": anything); `anywhere`, anywhere ("": anything), beside the part's own
    word `own` when their question holds it; `none_asked`: no query word in their question;
    `unless_repeats`: none of the turns repeating a word in their question (ranked before)."""

    question: str
    anywhere: str
    own: int | None = None
    unless_repeats: bool = False
    none_asked: bool = False


def _in(project: str | None, texts: WordTexts) -> _WholeTable | _ProjectWords:
    return _WholeTable(texts) if project is None else _ProjectWords(texts)


class _WholeTable:
    """The whole table's indexes: the question's words (QUESTION), every word (the vector),
    the project, if any, as its tag in each tsquery."""

    holds_repeats = True

    def __init__(self, texts: WordTexts) -> None:
        self.texts = texts
        self.asked = self.anywhere = texts.plain

    def where(
        self, condition: _Condition, count: int, tag: str, repeats: str, params: dict[str, Any]
    ) -> str:
        held = []
        if condition.question:
            asked = both(condition.question, negated(repeats), tag)
            held.append(f"{QUESTION} @@ {_bound(params, asked)}")
        if condition.anywhere:
            # GIN intersects the word's list with its company's inside one scan, skipping
            # through the longer lists; a bitmap of every turn holding a common companion
            # would cost more than the rows it spares.
            own = self.texts.plain[condition.own] if condition.own is not None else ""
            held.append(f"{V} @@ {_bound(params, both(own, condition.anywhere, tag))}")
        if condition.none_asked:
            asked_any = either(self.texts.in_question[:count])
            held.append(f"NOT {V} @@ {_bound(params, asked_any)}")
        return " AND ".join(held)


class _ProjectWords:
    """The index of each turn's words within its project (project_index.py): every condition
    in one tsquery, on lists that hold the project's turns only. The turns repeating a word,
    ranked before, are not left out here (that index does not hold the repeats): a part may
    rank some of them again, with the same score, and its top k stays a top k."""

    holds_repeats = False

    def __init__(self, texts: WordTexts) -> None:
        self.asked, self.anywhere = texts.asked, texts.anywhere

    def where(
        self, condition: _Condition, count: int, tag: str, repeats: str, params: dict[str, Any]
    ) -> str:
        none_asked = negated(either(self.asked[:count])) if condition.none_asked else ""
        held = both(condition.question, condition.anywhere, none_asked)
        return f"{IN_PROJECT} @@ {_bound(params, held)}"

"""Full-text search on PostgreSQL: the exact top k of an idf-weighted ts_rank without ranking
every turn that holds a common word.

A turn's score is the sum, over the query's words, of the word's idf times `ts_rank` of the
turn's `search_vector` for that word alone (the question weighs 1, file names 0.4, the answer
0.3): ts_rank by itself counts every word alike, so a turn full of a common word would rank with
one that holds the rare word the user is after. A word's ts_rank is below RANK_CEILING, so its
share of any score is below idf x RANK_CEILING. As on SQLite (sqlite/fts_search.py), the matching
turns are split by the rarest query word they hold, rarest first, each part ranked with every
query word; once the k-th best score found beats the ceilings of the words not yet visited, no
turn left can enter the top k. A part over the search's work budget is ranked in its newest
turns only, and the result says so (`approximate`; bench/RESULTS.md measures the overlap with the
exhaustive ranking that costs).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, select, text

from history.folding import strip_marks
from history.ranking import idf, share_of_best
from history.store.models import TURN_COLUMNS, Turn
from history.store.postgres import schema
from history.store.postgres.statistics import WordCounts
from history.store.rows import Ranked

# ts_rank's weights, {D, C, B, A}: the project tag, the answer, the file names, the question.
WEIGHTS = "{0, 0.3, 0.4, 1.0}"
# The most one word's ts_rank reaches with weight 1 (its occurrences' harmonic sum, normalised).
RANK_CEILING = 1.5
# Rows one search may rank; past it a part is ranked in its newest WINDOW_ROWS turns.
WORK_BUDGET = 8_000
WINDOW_ROWS = 1_500
# Ranked beyond k in each part, so that ties at the boundary go to the newer turn.
TIE_MARGIN = 20
V = schema.VECTOR_COLUMN
_ASKED_AT = [c.key for c in TURN_COLUMNS].index("asked_at")
_PROJECT_TURNS = text("SELECT turns FROM projects WHERE project = :project")


def score_expression(count: int) -> str:
    """SQL for the score of a row, given the words `:w0`.. and their idf `:i0`.."""
    return " + ".join(
        f"CAST(:i{n} AS float8) * ts_rank('{WEIGHTS}', {V}, {schema.word_query(f':w{n}')})"
        for n in range(count)
    )


def any_of(first: int, count: int) -> str:
    """SQL for a tsquery matching any of the words `:w<first>`.. (`count` of them)."""
    return " || ".join(schema.word_query(f":w{n}") for n in range(first, first + count))


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
            ceiling = [weight[term] * RANK_CEILING for term in ordered]
            part = _Part(ordered, weight, project, since, k)
            share = _project_share(conn, project, rows)
            best: dict[int, float] = {}
            left: float = WORK_BUDGET
            cut_short = False
            for i, term in enumerate(ordered):
                bar = heapq.nlargest(k, best.values())[-1] if len(best) >= k else 0.0
                if sum(ceiling[i:]) <= bar:
                    break
                expected = frequency[term] * share  # the part's rows, about
                window = 0 if expected <= left else WINDOW_ROWS
                cut_short = cut_short or window > 0
                left -= expected
                best.update(part.ranked(conn, i, window))
            ranked = heapq.nlargest(k + TIE_MARGIN, best.items(), key=lambda item: item[1])
            found = conn.execute(
                select(Turn.id, *TURN_COLUMNS).where(Turn.id.in_([rowid for rowid, _ in ranked]))
            )
            scored: list[tuple[Any, float]] = [(row[1:], best[row[0]]) for row in found]
        scored.sort(key=lambda pair: (-pair[1], -pair[0][_ASKED_AT].timestamp()))
        return Ranked(
            [(row, share_of_best(score, ceiling)) for row, score in scored[:k]], cut_short
        )


def _project_share(conn: Connection, project: str | None, rows: int) -> float:
    """The share of the turns a search looks in (its project's, from the summary rows)."""
    if project is None or rows <= 0:
        return 1.0
    turns = conn.execute(_PROJECT_TURNS, {"project": project}).scalar()
    return min(1.0, (turns or 0) / rows)


class _Part:
    """The statement ranking the turns whose rarest query word is the i-th."""

    def __init__(
        self,
        ordered: Sequence[str],
        weight: dict[str, float],
        project: str | None,
        since: datetime | None,
        k: int,
    ) -> None:
        self.ordered = ordered
        self.params: dict[str, Any] = {"limit": k + TIE_MARGIN}
        for n, term in enumerate(ordered):
            self.params[f"w{n}"] = term
            self.params[f"i{n}"] = weight[term]
        self.scope = ""
        if project is not None:
            self.scope += f" AND {V} @@ CAST(:tag AS tsquery)"
            self.params["tag"] = schema.project_tag(project)  # 'p' and hex digits: one lexeme
        if since is not None:
            self.scope += " AND asked_at >= :since"
            self.params["since"] = since.astimezone(UTC).replace(tzinfo=None)

    def ranked(self, conn: Connection, i: int, window: int) -> dict[int, float]:
        params = dict(self.params)
        where = f"{V} @@ {schema.word_query(f':w{i}')}{self.scope}"
        if i:
            where += f" AND NOT {V} @@ ({any_of(0, i)})"
        source = "turns"
        if window:
            source = f"(SELECT * FROM turns WHERE {where} ORDER BY id DESC LIMIT :window) AS newest"
            params["window"] = window
        statement = (
            f"SELECT id, {score_expression(len(self.ordered))} AS score FROM {source}"
            f" WHERE {where} ORDER BY score DESC, asked_at DESC LIMIT :limit"
        )
        return {rowid: float(score) for rowid, score in conn.execute(text(statement), params)}

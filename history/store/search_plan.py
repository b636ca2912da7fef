"""The plan every full-text search follows, whatever engine ranks its parts.

A backend splits the turns matching a query into parts, rarest word first, and ranks each with
every query word (its ranker: FTS5's bm25 on SQLite, an idf-weighted ts_rank on PostgreSQL), so
each score found is the exhaustive ranking's own. Each word's score has a ceiling: once the k-th
best score found passes what a turn not yet seen could still reach, the search stops. A search
may do so much work (its budget): a part too large for what is left is ranked in its newest
turns only (a window), or skipped, and the result says it was cut short. The top k are then
read whole, ties going to the newer turn, each scored as a share of the most its words allow.

This module holds what those backends share and imports none of them (nor SQLAlchemy, but to
read the top k through it): the window a part is ranked in, the budget's bookkeeping, the bar a
part must pass and the final top k.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from history.domain import TURN_FIELDS
from history.ranking import idf, share_of_best

if TYPE_CHECKING:
    from sqlalchemy import Connection

Start = TypeVar("Start")
_ASKED_AT = TURN_FIELDS.index("asked_at")


class Ranked(NamedTuple):
    """What a backend's ranking found: rows with their scores, best first, and whether it was
    cut short (some matching turns ranked only among the newest)."""

    rows: list[tuple[Any, float]]
    approximate: bool = False
    partial: bool = False  # turns left unread (a partition being rewritten, PostgreSQL)


class Reach(Enum):
    """How much of a part a search ranks."""

    ALL = "all"  # every matching turn: the part's exact best
    NEWEST = "newest"  # its newest turns only: the result is approximate
    SKIP = "skip"  # none: the budget is spent


@dataclass(frozen=True)
class Window(Generic[Start]):
    """The turns of a part to rank. `newest` (with Reach.NEWEST only) says where its newest
    turns start in the backend's own terms: a number of rows on SQLite, a time on PostgreSQL."""

    reach: Reach
    newest: Start | None = None

    @staticmethod
    def whole() -> Window[Any]:
        return Window(Reach.ALL)

    @staticmethod
    def skip() -> Window[Any]:
        return Window(Reach.SKIP)

    @staticmethod
    def newest_from(start: Start) -> Window[Start]:
        return Window(Reach.NEWEST, start)


class Budget:
    """The work a search may still do, in the backend's unit of work, and whether some part
    was ranked in a window (or skipped) for want of it."""

    def __init__(self, left: float) -> None:
        self.left = left
        self.cut_short = False

    def again(self, cost: float) -> bool:
        """Whether work already planned for (`cost`) may be done once more; pays if so."""
        if cost > self.left:
            return False
        self.left -= cost
        return True


@dataclass(frozen=True)
class Words:
    """The query's words as typed and rarest first, with each one's document frequency (in
    `rows` turns) and idf."""

    terms: tuple[str, ...]
    ordered: list[str]
    frequency: dict[str, int]
    idf: dict[str, float]

    @staticmethod
    def of(terms: Sequence[str], frequency: dict[str, int], rows: int) -> Words:
        # A cached count of 0 may be stale: such a word comes first, where the engine counts.
        ordered = sorted(terms, key=lambda term: frequency[term])
        weight = {term: idf(rows, frequency[term]) for term in terms}
        return Words(tuple(terms), ordered, frequency, weight)


def kth_best(scores: Iterable[float], k: int) -> float:
    """The bar a turn must pass to enter the top k found so far (0 while fewer than k)."""
    top = heapq.nlargest(k, scores)
    return top[-1] if len(top) >= k else 0.0


def tied_at_kth(scores: Mapping[int, float], k: int) -> list[int]:
    """The rows scoring at least the k-th best: the top k and every row tied with its last
    (their times break the tie)."""
    top = heapq.nlargest(k, scores.values())
    return [rowid for rowid, score in scores.items() if top and score >= top[-1]]


def top_k(
    conn: Connection,
    scores: Mapping[int, float],
    chosen: Iterable[int],
    k: int,
    word_bounds: Sequence[float],
    cut_short: bool,
    project: str | None = None,
) -> Ranked:
    """The `chosen` rows read whole, best first (ties to the newer turn), the first `k` of them
    scored as a share of the most the query's words allow (`word_bounds`). With `project`, the
    read names it too, so a store split by project reads that project's part alone."""
    from sqlalchemy import select

    from history.store.models import TURN_COLUMNS, Turn

    shown = [Turn.id.in_(list(chosen))] + ([] if project is None else [Turn.project == project])
    rows = conn.execute(select(Turn.id, *TURN_COLUMNS).where(*shown))
    return best_of(rows, scores, k, word_bounds, cut_short)


def best_of(
    rows: Iterable[Sequence[Any]],
    scores: Mapping[int, float],
    k: int,
    word_bounds: Sequence[float],
    cut_short: bool,
) -> Ranked:
    """`top_k` of `rows` already read: each a row id, then the turn's fields in TURN_FIELDS'
    order (`asked_at` a timezone-aware datetime)."""
    scored: list[tuple[Any, float]] = [(row[1:], scores[row[0]]) for row in rows]
    scored.sort(key=lambda pair: (-pair[1], -pair[0][_ASKED_AT].timestamp()))
    ranked = [(row, share_of_best(score, word_bounds)) for row, score in scored[:k]]
    return Ranked(ranked, cut_short)

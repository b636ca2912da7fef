"""The parts a full-text search ranks one by one (history/store/sqlite/fts_search.py), and the
best scores they have found: a part is the turns holding one query word (and one commoner word,
or none of them) in the project searched, with the MATCH and the ranking function's SQL for it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from history.query import fts_match, quote
from history.ranking import COLUMN_WEIGHTS
from history.store.search_plan import kth_best
from history.store.sqlite import exact_forms, fts, rank_extension

# The project tag column weighs nothing: it only narrows.
WEIGHTS = ", ".join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))
BM25 = f"bm25({fts.FTS_TABLE}, {WEIGHTS})"


class Best:
    """The scores found so far, by rowid, and the k-th best of them: the bar a turn must pass;
    the most each could earn for its words' forms; and the most a turn some part left out
    (below its LIMIT) can score with that bonus."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.scores: dict[int, float] = {}
        self.bonus: dict[int, float] = {}
        self.unseen = -math.inf

    def add(
        self, found: dict[int, float], limit: int, bonus: float, row_bonus: dict[int, float]
    ) -> None:
        """Keep each turn's best score: a part that left out some of its words scores it low.
        A score of 0 is no match: the word was some project's tag, in the weightless column.
        `bonus`: the most a turn of this part can earn for the forms of the words it holds;
        `row_bonus`: the same for each turn, where the words it holds are known."""
        for rowid, score in found.items():
            if score > self.scores.get(rowid, 0.0):
                self.scores[rowid] = score
                most = row_bonus.get(rowid, bonus)
                self.bonus[rowid] = max(most, self.bonus.get(rowid, 0.0))
        if len(found) >= limit:
            self.unseen = max(self.unseen, min(found.values()) + bonus)

    def reach(self) -> dict[int, float]:
        return {rowid: score + self.bonus[rowid] for rowid, score in self.scores.items()}

    def bar(self) -> float:
        return kth_best(self.scores.values(), self.k)


class Part:
    """The turns that hold one of `held`, and one of `any_of` if given, and none of `without`,
    in the project `tag`."""

    def __init__(
        self,
        held: Sequence[str],
        any_of: Sequence[str],
        tag: str | None,
        without: Sequence[str] = (),
    ) -> None:
        self.held, self.any_of = tuple(held), tuple(any_of)
        # The query words a turn of this part can hold: what its exact-form bonus can be for.
        self.words = (*held, *any_of)
        match = _words(held)
        if any_of:
            match = f"{match} AND {_words(any_of)}"
        if without:
            match = f"({match} NOT {_words(without)})"
        if tag is not None:
            match = f"{match} AND {fts.PROJECT_TAG} : {quote(tag)}"
        self.match = match
        self.phrases = [*held, *any_of, *without, *([tag] if tag is not None else [])]

    def bonus(
        self, masks: dict[int, int], term_idf: dict[str, float]
    ) -> tuple[float, dict[int, float]]:
        """The most a turn of this part can earn for its words' forms, and each found turn's
        most, from the phrases recall_phrases saw it hold (`masks`; none with bm25())."""
        words = set(self.words)
        by_mask: dict[int, float] = {}
        for mask in set(masks.values()):
            held = [p for i, p in enumerate(self.phrases) if mask >> i & 1 and p in words]
            by_mask[mask] = exact_forms.largest_bonus(held, term_idf)
        row_bonus = {rowid: by_mask[mask] for rowid, mask in masks.items()}
        return exact_forms.largest_bonus(self.words, term_idf), row_bonus

    def ranking(self, counts: dict[str, int] | None, limit: int) -> tuple[str, list[int | None]]:
        """The ranking function's SQL and its parameters: bm25(), or recall_bm25 given each
        phrase's count (None, which it counts itself, where the cache has none) and the rows
        the statement keeps (it skips reading the length of a row that cannot be among them)."""
        if counts is None:
            return BM25, []
        given = [*(counts.get(phrase) or None for phrase in self.phrases), limit]
        marks = ", ".join("?" for _ in given)
        return f"{rank_extension.FUNCTION}({fts.FTS_TABLE}, {WEIGHTS}, {marks})", given


def _words(words: Sequence[str]) -> str:
    # No column filter: it would double the cost of bm25's count of each word (FTS5 would read
    # where each hit is). A word found only in the tag column scores 0, and Best drops it.
    return f"({fts_match(words)})"

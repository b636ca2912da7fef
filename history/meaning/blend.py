"""The fusion of the two rankings, 0.9 words and 0.1 meaning: the lexical scores scaled from 0
to the best lexical score (1), the nearest vectors' cosines over their own candidates (the
nearest 1, the farthest of the 50 0); a candidate one side did not bring scores 0 there.

Scaled from 0, the lexical scores keep their distance from the best however many were asked
for, so the blend mostly re-orders the lexical best 10 by meaning; a turn only the vectors
bring (at least NEAR_ENOUGH) comes first where the words found nothing (or nothing close). On
the six development sets this gains hit@5 and MRR@10 at both query lengths on every set but one
cell, where hit@5 ties (bench/RESULTS.md, "Search by meaning, fifth slice"); the blend scaled
over the candidates (0.7 words over the lexical best 10) lost on three sets.
"""

from __future__ import annotations

from collections.abc import Container, Hashable, Sequence
from typing import TypeVar

CANDIDATES = 50
WORDS_WEIGHT = 0.9
# A turn the words did not find is brought by its vector only this near the query (cosine):
# below, a query whose words match nothing would still list the nearest turns, however far.
# Unrelated words measured 0.27 at most against coding turns; a real query's nearest turn, 0.52
# at the 5th percentile; on the development sets the floor changes no measure by more than
# 0.3 point and the verdict not at all (bench/RESULTS.md, "Search by meaning, fifth slice").
NEAR_ENOUGH = 0.3

Key = TypeVar("Key", bound=Hashable)


def scaled(ranked: Sequence[tuple[Key, float]]) -> dict[Key, float]:
    """Scores mapped onto 0..1: the best 1, the worst of the candidates 0 (all 1 when equal)."""
    if not ranked:
        return {}
    scores = [score for _key, score in ranked]
    top, bottom = max(scores), min(scores)
    spread = top - bottom
    return {key: (score - bottom) / spread if spread > 0 else 1.0 for key, score in ranked}


def from_best(ranked: Sequence[tuple[Key, float]]) -> dict[Key, float]:
    """Scores (0 or more) as shares of the best: the best 1, a score of 0 is 0."""
    top = max((score for _key, score in ranked), default=0.0)
    return {key: score / top if top > 0 else 1.0 for key, score in ranked}


def blended(
    words: Sequence[tuple[Key, float]],
    meaning: Sequence[tuple[Key, float]],
    words_weight: float = WORDS_WEIGHT,
) -> list[tuple[Key, float]]:
    """Both rankings' candidates, best first by the weighted sum of their scaled scores (ties:
    the lexical order, then the meaning order); `meaning`'s scores are cosines, and a turn only
    it brings must be NEAR_ENOUGH."""
    near = kept(meaning, {key for key, _score in words})
    return weighted(from_best(words), scaled(near), words_weight)


def kept(meaning: Sequence[tuple[Key, float]], by_words: Container[Key]) -> list[tuple[Key, float]]:
    """The nearest that a blend keeps: those the words found too, and the others NEAR_ENOUGH."""
    return [(key, cosine) for key, cosine in meaning if key in by_words or cosine >= NEAR_ENOUGH]


def weighted(
    by_words: dict[Key, float], by_meaning: dict[Key, float], words_weight: float
) -> list[tuple[Key, float]]:
    """Scores already scaled to 0..1 (each side best first), summed with their weights, best
    first (ties: the lexical order, then the meaning order)."""
    order = {key: at for at, key in enumerate([*by_words, *by_meaning])}
    total = {
        key: words_weight * by_words.get(key, 0.0) + (1 - words_weight) * by_meaning.get(key, 0.0)
        for key in order
    }
    return sorted(total.items(), key=lambda item: (-item[1], order[item[0]]))

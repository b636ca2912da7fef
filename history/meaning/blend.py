"""The fusion of the two rankings: each side's scores scaled to 0..1 over its own candidates
(the best 50 of each), then weighted 0.7 words, 0.3 meaning; a candidate one side did not bring
scores 0 there. Half and half lost on tokio's 4-word queries; 0.7 gained on every measure of
both sets tried, datasette and tokio (bench/RESULTS.md, "Search by meaning").
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

CANDIDATES = 50
WORDS_WEIGHT = 0.7

Key = TypeVar("Key", bound=Hashable)


def scaled(ranked: Sequence[tuple[Key, float]]) -> dict[Key, float]:
    """Scores mapped onto 0..1: the best 1, the worst of the candidates 0 (all 1 when equal)."""
    if not ranked:
        return {}
    scores = [score for _key, score in ranked]
    top, bottom = max(scores), min(scores)
    spread = top - bottom
    return {key: (score - bottom) / spread if spread > 0 else 1.0 for key, score in ranked}


def blended(
    words: Sequence[tuple[Key, float]],
    meaning: Sequence[tuple[Key, float]],
    words_weight: float = WORDS_WEIGHT,
) -> list[tuple[Key, float]]:
    """Both rankings' candidates, best first by the weighted sum of their scaled scores (ties:
    the lexical order, then the meaning order)."""
    return weighted(scaled(words), scaled(meaning), words_weight)


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

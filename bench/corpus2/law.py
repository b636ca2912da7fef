"""The second corpus's frequency law: Zipf-Mandelbrot, f(r) ~ 1 / (r + q)^s, with the s and q
fitted to the standard library's docstrings (`lexicon.json`, about s = 1.5, q = 96: a flatter
head and a steeper tail than the first corpus's Zipf law with s = 1 and q = 0)."""

from __future__ import annotations

import itertools
from functools import cache

from bench.corpus2.lexicon import lexicon


def parameters() -> tuple[float, float]:
    law = lexicon()["zipf_mandelbrot"]
    return float(law["s"]), float(law["q"])


def cumulative(count: int) -> list[float]:
    """Cumulative Zipf-Mandelbrot weights of ranks 1..count, for `random.choices`."""
    s, q = parameters()
    return list(itertools.accumulate(1.0 / (rank + q) ** s for rank in range(1, count + 1)))


@cache
def words() -> tuple[str, ...]:
    """The lexicon's words, most frequent first."""
    return tuple(lexicon()["words"])


@cache
def word_weights() -> tuple[float, ...]:
    return tuple(cumulative(len(words())))

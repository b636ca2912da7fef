"""The corpora and query mixes the bench can run: `standard` (bench.corpus) and `common`
(bench.common_mix, every query word a frequent one)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from bench import common_mix, corpus
from bench.corpus import GeneratedTurn, Query

TurnStream = Callable[[int, datetime | None], Iterator[GeneratedTurn]]
QueryMaker = Callable[[int, int], list[Query]]

MIXES: dict[str, tuple[TurnStream, QueryMaker]] = {
    "standard": (corpus.turns, corpus.queries),
    "common": (common_mix.turns, common_mix.queries),
}


def turns(mix: str, seed: int, end: datetime | None) -> Iterator[GeneratedTurn]:
    return MIXES[mix][0](seed, end)


def queries(mix: str, count: int, seed: int) -> list[Query]:
    return MIXES[mix][1](count, seed)

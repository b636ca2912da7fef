"""The corpora and query mixes the bench can run: `standard` (bench.corpus) and `common`
(bench.common_mix, every query word a frequent one); on the second corpus (bench.corpus2) the
same two mixes, `second` and `second-common`, search one stream of turns, whose every turn
carries its work log (bench.corpus2.work), as `work` (bench.work_mix) gives the first corpus's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from bench import common_mix, corpus, corpus2, work_mix
from bench.corpus import GeneratedTurn, Query

TurnStream = Callable[[int, datetime | None], Iterator[GeneratedTurn]]
QueryMaker = Callable[[int, int], list[Query]]

MIXES: dict[str, tuple[TurnStream, QueryMaker]] = {
    "standard": (corpus.turns, corpus.queries),
    "common": (common_mix.turns, common_mix.queries),
    "work": (work_mix.turns, corpus.queries),
    "second": (corpus2.turns, corpus2.queries),
    "second-common": (corpus2.turns, corpus2.common_queries),
}
# The mixes that share their turns, so a database kept for one serves the other.
STREAMS = {"second-common": "second"}
# The mixes whose turns carry a work log (the baseline then indexes a work column too).
WITH_WORK = frozenset({"work", "second", "second-common"})


def stream_name(mix: str) -> str:
    return STREAMS.get(mix, mix)


def carries_work(mix: str) -> bool:
    return mix in WITH_WORK


def turns(mix: str, seed: int, end: datetime | None) -> Iterator[GeneratedTurn]:
    return MIXES[mix][0](seed, end)


def queries(mix: str, count: int, seed: int) -> list[Query]:
    return MIXES[mix][1](count, seed)

"""Ending a search early from its common words' lists (best_turns.py): the turns holding none of
the query's rarer words are bounded by the lists of the words left, not by each word's ceiling.

Once the rarer words' parts are ranked (fts_search.py), every turn not yet ranked holds only
words that have a list. A turn no list holds scores at most the sum of the lists' `left_out`
bounds (and the bonus its words' forms could earn); a listed turn scores at least what its lists
give it, and at most that plus the `left_out` of each list it is not in. So the lists alone say
which listed turns could still pass the k-th best: only those are ranked by FTS5, one rowid
each, with every query word. If the k-th best then beats what a turn no list holds could score,
the search's top k is proven without ranking the common words' turns. At 1M that ends few
searches of every project (their words' lists leave too much out), but in one project it halves
the searches cut short (bench/RESULTS.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from history.ranking import score_bound
from history.store.search_plan import kth_best
from history.store.sqlite import exact_forms, fts, rank_extension
from history.store.sqlite.best_turns import BestTurns
from history.store.sqlite.fts_parts import Part
from history.store.sqlite.reads import Sql

# Listed turns a search may rank one rowid at a time (each a seek in every query word's posting
# list: ~15 us at 100k turns, ~45 at 1M); with more that could pass, the lists prove nothing
# cheaply (at 1M, ranking them all proved a fifth more searches and made them slower).
MOST_LOOKED_UP = 64
# A search whose next word's turns are fewer ranks them as before: reading the lists would cost
# about as much.
WORTH_FROM_ROWS = 5_000


@dataclass(frozen=True)
class Rest:
    """What the lists of the words not yet ranked say: the most a turn none of them holds can
    score with its bonus (`unseen`), and the listed turns that could pass the k-th best."""

    unseen: float
    could_pass: list[int]


def bounded(
    lists: Mapping[str, BestTurns],
    everywhere: Sequence[str],
    term_idf: Mapping[str, float],
    average: float,
    found: Mapping[int, float],
    k: int,
) -> Rest:
    """The bound the `lists` give the turns holding only their words (and `everywhere`'s: words
    in nearly every turn, which have no list and weigh next to nothing), given the scores
    `found` so far."""
    words = [*lists, *everywhere]
    bonus = exact_forms.largest_bonus(words, term_idf)
    left_out = {term: listed.left_out(term_idf[term], average) for term, listed in lists.items()}
    common = sum(score_bound(term_idf[term]) for term in everywhere)
    known: dict[int, float] = {}  # a listed turn's score for the words whose lists hold it
    held: dict[int, float] = {}  # the left-out bounds of those lists
    for term, listed in lists.items():
        for turn, score in listed.scores(term_idf[term], average).items():
            known[turn] = known.get(turn, 0.0) + score
            held[turn] = held.get(turn, 0.0) + left_out[term]
    total = sum(left_out.values())
    # A listed turn may hold a word whose list misses it, scoring up to that list's left-out.
    lowest = kth_best(_merged(found, known), k)
    could_pass = [
        turn
        for turn, least in known.items()
        if least + max(total - held[turn], 0.0) + common + bonus >= lowest
    ]
    return Rest(total + common + bonus, could_pass)


def ranked(
    conn: Sql, part: Part, counts: dict[str, int], turns: Sequence[int]
) -> tuple[dict[int, float], dict[int, int]]:
    """`turns` of `part` ranked by recall_bm25 over every word of the part (rowid: score), and
    which of its phrases each holds (rowid: bit mask)."""
    function, given = part.ranking(counts, 0)  # 0: score every row, keep none aside
    phrases = f"{rank_extension.PHRASES}({fts.FTS_TABLE})"
    rows = conn.exec_driver_sql(
        f"SELECT {fts.FTS_TABLE}.rowid, {function}, {phrases} FROM {fts.FTS_TABLE} "
        f"WHERE {fts.FTS_TABLE} MATCH ? AND {fts.FTS_TABLE}.rowid IN "
        "(SELECT value FROM json_each(?))",
        (*given, part.match, json.dumps(list(turns))),
    ).all()
    return {row[0]: -float(row[1]) for row in rows}, {row[0]: int(row[2]) for row in rows}


def _merged(found: Mapping[int, float], known: Mapping[int, float]) -> Iterable[float]:
    for turn, score in known.items():
        yield max(score, found.get(turn, score))
    for turn, score in found.items():
        if turn not in known:
            yield score

"""What a turn not yet ranked can still score, and so which of them can still enter the top k.

A turn's score is the sum over the query's words of the word's weight (idf) times its ts_rank,
and a word's ts_rank stays under HEAD_CEILING when the word is in the question, under
TAIL_CEILING when it is only in the file names or the answer (search.py says why), and is 0
when the word is absent. A part of the search holds the turns whose first query word, rarest
first, is its own: each other word adds at most its ceiling, and only if the turn holds it. So a
turn of the part that holds its own word and no other query word scores at most its own word's
ceiling: once the k-th best score passes that, only the turns that also hold enough of the other
words (anywhere: one GIN lookup, no row read) can still enter, and the part asks for those only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

# ts_rank of one word first found in the question stays below sum(1/n²) / 1.645 < 1; first
# found in the file names, below 0.4 (the answer's 0.3 and the work's 0.15 are less).
HEAD_CEILING, TAIL_CEILING = 1.0, 0.4
# Past this many other words, the sets of them a turn may need are too many to spell out.
MOST_COMPANY_WORDS = 7


def _ceilings(
    weights: Sequence[float],
    i: int,
    head: bool,
    alone: bool,
    question: Sequence[float] | None = None,
) -> list[float]:
    """The most each query word can add to a turn of part (i, head). A head part's turns hold
    none of the words before i in their question (`alone`: none but the i-th); a tail's hold
    no query word in their question and none of the words before i at all. `question`: the
    most each word scores in a head part's question (HEAD_CEILING, or less once the turns
    repeating it were ranked: question_index.py)."""
    question = question or [HEAD_CEILING] * len(weights)
    most = []
    for j, weight in enumerate(weights):
        if j == i:
            most.append((question[j] if head else TAIL_CEILING) * weight)
        elif not head and j < i:
            most.append(0.0)
        elif head and j > i and not alone:
            most.append(question[j] * weight)
        else:
            most.append(TAIL_CEILING * weight)
    return most


def bound(
    weights: Sequence[float],
    i: int,
    head: bool,
    alone: bool = False,
    question: Sequence[float] | None = None,
) -> float:
    """The most a turn of part (i, head) can score."""
    return sum(_ceilings(weights, i, head, alone, question))


def company(
    weights: Sequence[float],
    i: int,
    head: bool,
    alone: bool,
    bar: float,
    question: Sequence[float] | None = None,
) -> list[tuple[int, ...]] | None:
    """The smallest sets of other words a turn of part (i, head) must also hold to score more
    than `bar`: None when its own word may be enough (every turn of the part is a candidate),
    [] when no turn of the part can."""
    most = _ceilings(weights, i, head, alone, question)
    own = most[i]
    if own > bar:
        return None
    others = [j for j, ceiling in enumerate(most) if j != i and ceiling > 0]
    if len(others) > MOST_COMPANY_WORDS:
        return None if sum(most) > bar else []
    needed: list[tuple[int, ...]] = []
    for size in range(1, len(others) + 1):
        for subset in itertools.combinations(others, size):
            if any(set(smaller) <= set(subset) for smaller in needed):
                continue
            if own + sum(most[j] for j in subset) > bar:
                needed.append(subset)
    return needed


def share_holding(needed: Sequence[tuple[int, ...]], counts: Sequence[int], rows: int) -> float:
    """About the share of turns holding one of the `needed` sets (the words taken as
    independent; `counts`: the turns holding each word)."""
    share = 0.0
    for subset in needed:
        together = 1.0
        for j in subset:
            together *= min(1.0, counts[j] / max(rows, 1))
        share += together
    return min(1.0, share)


def enough_words(
    weights: Sequence[float], bar: float, question: Sequence[float] | None = None
) -> list[tuple[int, ...]] | None:
    """The smallest sets of query words a turn holding two of them or more in its question must
    hold (anywhere) to score more than `bar`: None when any such turn may, [] when none can.
    Any of its words may be in its question: each adds at most its question's ceiling
    (`question`, as for `company`), and a word it does not hold adds nothing."""
    question = question or [HEAD_CEILING] * len(weights)
    most = [ceiling * weight for ceiling, weight in zip(question, weights, strict=True)]
    if all(a + b > bar for a, b in itertools.combinations(most, 2)):
        return None
    if len(most) > MOST_COMPANY_WORDS:
        return None if sum(most) > bar else []
    needed: list[tuple[int, ...]] = []
    for size in range(1, len(most) + 1):
        for subset in itertools.combinations(range(len(most)), size):
            if any(set(smaller) <= set(subset) for smaller in needed):
                continue
            if sum(most[j] for j in subset) > bar:
                needed.append(subset)
    return needed

"""The last step of a full-text search: each candidate's bm25 plus the exact-form bonus
(history.ranking), computed in bm25 order until nothing left could reach the k-th best.

The bonus is at most `EXACT_FORM_BONUS` x the idf of the query words a turn holds, and each part
of the search knows which words its turns can hold (its MATCH), so a turn whose bm25 plus that
cannot pass the k-th best final score cannot enter the top k.
Each part of the search returns its best `CANDIDATES_PER_PART` by bm25; the turns a part did not
return score at most its last one, so the result is exact only when that too falls short by
more than the largest bonus (else the search ranks the part again, deeper). When it still does
not, or the bonus was computed for `MOST_BONUSED` candidates without settling it, the search
says it is approximate.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence

from history.ranking import EXACT_FORM_BONUS, exact_form_bonus
from history.store.sqlite.reads import Sql

# Rows each part returns by bm25 (its SQL LIMIT): ranking them costs FTS5 little more than
# ranking fewer; only the ones within reach of the top k are given the bonus. When the turns a
# part left out could still pass, it is ranked again four times deeper, down to DEEPEST rows.
CANDIDATES_PER_PART = 200
DEEPEST = 3_300
# Candidates given the bonus in the first round trip (then twice as many each time), and at most
# per search: each one's text is read and folded in Python, ~30-70 us a candidate.
FIRST_BATCH = 8
MOST_BONUSED = 640


def with_bonus(
    conn: Sql,
    terms: Sequence[str],
    term_idf: Mapping[str, float],
    scores: Mapping[int, float],
    reach: Mapping[int, float],
    unseen: float,
    k: int,
) -> tuple[dict[int, float], bool]:
    """The final score (bm25 + bonus) of every candidate that can be among the best `k` of
    `scores` (rowid: bm25), and whether that is proven: no candidate left out (`reach`: the most
    each can score with its bonus), and no turn the parts did not return (at most `unseen` with
    its bonus), could reach the k-th best."""
    ordered = sorted(reach.items(), key=lambda item: -item[1])
    final: dict[int, float] = {}
    done, size = 0, max(k, FIRST_BATCH)
    while done < len(ordered) and done < MOST_BONUSED:
        bar = _kth(final, k)
        end = min(done + size, MOST_BONUSED)
        batch = [rowid for rowid, most in ordered[done:end] if most >= bar]
        if not batch:
            break
        for rowid, texts in _texts(conn, batch):
            final[rowid] = scores[rowid] + exact_form_bonus(terms, texts, term_idf)
        done = end
        size *= 2
    left = ordered[done][1] if done < len(ordered) else -math.inf
    most = max(left, unseen)
    return final, most == -math.inf or most < _kth(final, k)


def largest_bonus(words: Iterable[str], term_idf: Mapping[str, float]) -> float:
    """The most a turn holding no query words but `words` can earn for their forms."""
    return EXACT_FORM_BONUS * sum(term_idf[word] for word in words)


def unseen_could_pass(final: Mapping[int, float], unseen: float, k: int) -> bool:
    """Whether a turn no part returned (at most `unseen` with its bonus) could reach the k-th
    best of `final`."""
    return unseen >= _kth(final, k)


def _kth(final: Mapping[int, float], k: int) -> float:
    if len(final) < k:
        return -math.inf
    return heapq.nlargest(k, final.values())[-1]


def _texts(conn: Sql, rowids: Sequence[int]) -> list[tuple[int, tuple[str, ...]]]:
    marks = ", ".join("?" for _ in rowids)
    sql = f"SELECT id, asked, answered, files, work FROM turns WHERE id IN ({marks})"
    return [(row[0], tuple(row[1:])) for row in conn.exec_driver_sql(sql, tuple(rowids))]

"""The last step of a full-text search: each candidate's bm25 plus the exact-form bonus
(history.ranking), computed in bm25 order until nothing left could reach the k-th best.

The bonus is at most `EXACT_FORM_BONUS` x the query words' idf, so a turn whose bm25 plus that
cannot pass the k-th best final score cannot enter the top k, and neither can any turn below it.
Each part of the search returns its best `CANDIDATES_PER_PART` by bm25; the turns a part did not
return score at most its last one, so the result is exact only when that too falls short by
more than the largest bonus. When it does not, or the bonus was computed for `MOST_BONUSED`
candidates without settling it, the search says it is approximate.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence

from sqlalchemy import Connection

from history.ranking import EXACT_FORM_BONUS, exact_form_bonus

# Rows each part returns by bm25 (its SQL LIMIT): ranking them costs FTS5 no more than ranking
# fewer; only the ones within reach of the top k are given the bonus.
CANDIDATES_PER_PART = 200
# Candidates given the bonus in the first round trip (then twice as many each time), and at most
# per search: each one's text is read and folded in Python, ~30-70 us a candidate.
FIRST_BATCH = 8
MOST_BONUSED = 640


def with_bonus(
    conn: Connection,
    terms: Sequence[str],
    term_idf: Mapping[str, float],
    scores: Mapping[int, float],
    unseen: float,
    k: int,
) -> tuple[dict[int, float], bool]:
    """The final score (bm25 + bonus) of every candidate that can be among the best `k` of
    `scores` (rowid: bm25), and whether that is proven: no candidate left out, and no turn the
    parts did not return (bm25 at most `unseen`), could reach the k-th best."""
    largest = EXACT_FORM_BONUS * sum(term_idf.values())
    ordered = sorted(scores.items(), key=lambda item: -item[1])
    final: dict[int, float] = {}
    done, size = 0, max(k, FIRST_BATCH)
    while done < len(ordered) and done < MOST_BONUSED:
        bar = _kth(final, k)
        batch = [rowid for rowid, score in ordered[done : done + size] if score + largest >= bar]
        if not batch:
            break
        for rowid, texts in _texts(conn, batch):
            final[rowid] = scores[rowid] + exact_form_bonus(terms, texts, term_idf)
        done += size
        size *= 2
    bar = _kth(final, k)
    left = ordered[done][1] if done < len(ordered) else -math.inf
    reach = max(left, unseen)
    return final, reach == -math.inf or reach + largest < bar


def _kth(final: Mapping[int, float], k: int) -> float:
    if len(final) < k:
        return -math.inf
    return heapq.nlargest(k, final.values())[-1]


def _texts(conn: Connection, rowids: Sequence[int]) -> list[tuple[int, tuple[str, str, str]]]:
    marks = ", ".join("?" for _ in rowids)
    sql = f"SELECT id, asked, answered, files FROM turns WHERE id IN ({marks})"
    return [(row[0], (row[1], row[2], row[3])) for row in conn.exec_driver_sql(sql, tuple(rowids))]

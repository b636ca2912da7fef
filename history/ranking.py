"""BM25 as FTS5 computes it, for the LIKE path, so both paths rank by one rule, and the bonus
both add for a query word found in the very form it was typed.

FTS5's bm25(): per term, IDF x weighted hit count x length normalisation, with k1 = 1.2 and
b = 0.75; a row's length is its token count over all indexed columns. As recall_bm25 ranks
(history/store/sqlite/fts5_rank.c), a term's document frequency counts the turns holding it in a
column other than the work: a word common in code (`test`, `error`) weighs as much in the asked
text as it did before turns kept their work (bench/RESULTS.md measures it). Terms are matched by
their index form (history.query.stem): "proactive" finds "Proactiveness".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from history.query import fold, holds_word, stem

_T = TypeVar("_T")

K1 = 1.2
B = 0.75

# By column, in the full-text index's order (asked, answered, files, work): the asked text weighs
# above the answer and the file names, and the work (commands, failures, added lines) below them.
COLUMN_WEIGHTS: tuple[float, ...] = (3.0, 1.0, 1.0, 0.5)
# The work's place among them: its hits score and its words make a turn longer, but a word found
# only there does not count the turn in the word's document frequency.
WORK_COLUMN = 3
# Added, times the word's idf, for each query word a turn holds in the form typed: of two turns
# bm25 ties on a stem, the one that says "proactive" ranks above the one that says
# "proactiveness" (bench/RESULTS.md measures the weight on every development set).
EXACT_FORM_BONUS = 0.5


def idf(rows: int, rows_with_term: int) -> float:
    # The two counts are read apart: a writer in between can make a word's count pass the rows'.
    rows_with_term = min(rows_with_term, rows)
    value = math.log((rows - rows_with_term + 0.5) / (rows_with_term + 0.5))
    return value if value > 0 else 1e-6


def score_bound(term_idf: float) -> float:
    """The most one query word can add to a turn's score, however often the turn holds it:
    bm25's term score stays below idf x (k1 + 1), and the exact-form bonus adds its share."""
    return term_idf * (K1 + 1 + EXACT_FORM_BONUS)


def share_of_best(score: float, word_bounds: Iterable[float]) -> float:
    """What `Hit.score` is: a turn's score as a share of the most any turn could score for the
    same words in the same index, from 0 (none of them) to 1 (every word as often as the
    ranking rewards, in the form typed). `word_bounds`: the most each query word can add, on
    the search path that scored (`score_bound` of its idf here: bm25 plus the exact-form bonus).
    One scale whatever the index's size and backend: raw bm25 is near 1e-6 on an index of a few
    turns (a word in half the turns or more weighs 1e-6) and tens on a large one."""
    best = sum(word_bounds)
    return min(score / best, 1.0) if best > 0 else 0.0


def length_norm(length: int, average_length: float) -> float:
    """bm25's length normalisation of a row `length` tokens long."""
    return K1 * (1 - B + B * length / max(average_length, 1e-9))


def term_score(term_idf: float, frequency: float, norm: float) -> float:
    """One term's bm25 contribution: `frequency` is its column-weighted hit count in the row."""
    return term_idf * frequency * (K1 + 1) / (frequency + norm) if frequency else 0.0


def bm25_scores(
    documents: Sequence[Sequence[Sequence[str]]],
    terms: Sequence[str],
    total_rows: int,
    weights: Sequence[float] = COLUMN_WEIGHTS,
) -> tuple[list[float], dict[str, float]]:
    """Scores (higher is better) of `documents`, each a tuple of columns of words, and each
    term's idf. Words and terms match by their stems.

    `total_rows` is the size of the whole collection; document frequencies are counted over
    `documents`, which must hold every row that contains any of the terms. The column at
    WORK_COLUMN does not count in the document frequencies.
    """
    counts = [[Counter(stem(word) for word in column) for column in doc] for doc in documents]
    lengths = [sum(len(column) for column in doc) for doc in documents]
    average_length = (sum(lengths) / len(lengths)) if lengths else 1.0
    rows = max(total_rows, len(documents))
    stems = {term: stem(term) for term in terms}
    term_idf = {
        term: idf(rows, sum(1 for doc in counts if any(c[stems[term]] for c in counted(doc))))
        for term in terms
    }
    scores = []
    for doc, length in zip(counts, lengths, strict=True):
        norm = length_norm(length, average_length)
        scores.append(
            sum(
                term_score(
                    term_idf[term],
                    sum(w * column[stems[term]] for w, column in zip(weights, doc, strict=False)),
                    norm,
                )
                for term in terms
            )
        )
    return scores, term_idf


def counted(columns: Sequence[_T]) -> list[_T]:
    """The columns that count a turn in a word's document frequency: all but the work."""
    return [column for i, column in enumerate(columns) if i != WORK_COLUMN]


def exact_form_bonus(
    terms: Sequence[str],
    texts: Sequence[str],
    term_idf: Mapping[str, float],
    weight: float = EXACT_FORM_BONUS,
) -> float:
    """What a turn whose columns are `texts` earns for the query words it holds in the form
    typed."""
    folded = fold("\n".join(texts))
    return weight * sum(term_idf[term] for term in terms if holds_word(folded, term))

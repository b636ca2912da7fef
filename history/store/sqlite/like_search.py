"""Search where SQLite has no FTS5: the same questions, answered by substring and the tokenizer.

SQL narrows to rows holding a term's stem, less its last letters, as a substring of the folded
text (`instr`, which unlike a LIKE pattern has no length limit and no wildcards to escape); the
tokenizer then keeps the rows holding a word of the same stem, and bm25 (plus the exact-form
bonus) is computed in Python the way the FTS5 path computes it, so both paths agree on what
matches and, as far as their statistics allow, on the order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Engine, and_, func, or_, select

from history.query import stem, words
from history.ranking import bm25_scores, exact_form_bonus, score_bound, share_of_best
from history.store.models import TURN_COLUMNS, Turn


def search_like(
    engine: Engine, terms: Sequence[str], scope: Sequence[ColumnElement[bool]], k: int
) -> list[tuple[Any, float]]:
    folded = [func.recall_fold(col) for col in (Turn.asked, Turn.answered, Turn.files, Turn.work)]
    needles = {stem_needle(term) for term in terms}
    any_substring = or_(*(func.instr(col, needle) > 0 for needle in needles for col in folded))
    statement = select(*TURN_COLUMNS).where(and_(any_substring, *scope))
    with engine.connect() as conn:
        rows = list(conn.execute(statement))
        total = conn.execute(select(func.count()).select_from(Turn)).scalar_one()
    wanted = {stem(term) for term in terms}
    documents, matching = [], []
    for row in rows:
        texts = (row.asked, row.answered, row.files, row.work)
        columns = tuple(words(value) for value in texts)
        if any(wanted.intersection(stem(word) for word in column) for column in columns):
            documents.append(columns)
            matching.append((row, texts))
    scores, term_idf = bm25_scores(documents, terms, total)
    for i, (_, texts) in enumerate(matching):
        scores[i] += exact_form_bonus(terms, texts, term_idf)
    ranked = sorted(
        zip((row for row, _ in matching), scores, strict=True),
        key=lambda pair: (-pair[1], -pair[0].asked_at.timestamp()),
    )
    bounds = [score_bound(value) for value in term_idf.values()]
    return [(tuple(row), share_of_best(score, bounds)) for row, score in ranked[:k]]


def stem_needle(term: str) -> str:
    """A substring of every word with the term's stem: Porter rewrites at most a stem's last
    two letters ("happy" -> "happi"); words it leaves alone (short, long, CJK) are themselves."""
    stemmed = stem(term)
    if stemmed == term and (not term.isascii() or not 3 <= len(term) <= 64):
        return term
    return stemmed[: max(len(stemmed) - 2, 1)]

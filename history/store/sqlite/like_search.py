"""Search where SQLite has no FTS5: the same questions, answered by substring and the tokenizer.

SQL narrows to rows holding a term as a substring of the folded text (`instr`, which unlike a
LIKE pattern has no length limit and no wildcards to escape); the tokenizer then keeps the rows
holding it as a word, and bm25 is computed in Python the way FTS5 computes it, so both paths
agree on what matches and, as far as their statistics allow, on the order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Engine, and_, func, or_, select

from history.query import words
from history.ranking import bm25_scores
from history.store.models import TURN_COLUMNS, Turn


def search_like(
    engine: Engine, terms: Sequence[str], scope: Sequence[ColumnElement[bool]], k: int
) -> list[tuple[Any, float]]:
    folded = [func.recall_fold(col) for col in (Turn.asked, Turn.answered, Turn.files)]
    any_substring = or_(*(func.instr(col, term) > 0 for term in terms for col in folded))
    statement = select(*TURN_COLUMNS).where(and_(any_substring, *scope))
    with engine.connect() as conn:
        rows = list(conn.execute(statement))
        total = conn.execute(select(func.count()).select_from(Turn)).scalar_one()
    wanted = set(terms)
    documents, matching = [], []
    for row in rows:
        columns = (words(row.asked), words(row.answered), words(row.files))
        if any(wanted.intersection(column) for column in columns):
            documents.append(columns)
            matching.append(row)
    scores = bm25_scores(documents, terms, total)
    ranked = sorted(
        zip(matching, scores, strict=True),
        key=lambda pair: (-pair[1], -pair[0].asked_at.timestamp()),
    )
    return [(tuple(row), score) for row, score in ranked[:k]]

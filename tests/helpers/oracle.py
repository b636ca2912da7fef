"""The exhaustive ranking a fast search must equal: every matching turn scored by the shipped
ranking, and the check that a search's top k is it."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from sqlalchemy import Connection, text

from history import HistoryIndex, Hit
from history.ranking import COLUMN_WEIGHTS, exact_form_bonus, idf, score_bound, share_of_best
from history.store.sqlite import fts, rank_extension
from tests.helpers.engines import engine_of


class ShippedRanking(NamedTuple):
    """The ranking function a search on `conn` ranks with, as SQL (the shipped column
    weights), and the MATCH prefix that counts a word's turns as that function counts them."""

    function: str
    counted: str


def shipped_ranking(conn: Connection) -> ShippedRanking:
    """With the compiled recall_bm25, a word's turns are counted outside the work (as it
    counts them); with bm25(), in the whole row (as bm25() does)."""
    weights = ", ".join(str(weight) for weight in (*COLUMN_WEIGHTS, 0.0))
    if conn.connection.info.get(rank_extension.FUNCTION):
        return ShippedRanking(
            f"{rank_extension.FUNCTION}(turns_fts, {weights})", "{asked answered files} : "
        )
    return ShippedRanking(f"bm25(turns_fts, {weights})", "")


def exhaustive(
    index: HistoryIndex, query_terms: list[str], project: str | None
) -> dict[str, float]:
    """The score of every matching turn: the shipped ranking function as FTS5 computes it with
    every term in the MATCH and the shipped column weights (the work's included), plus the
    exact-form bonus (the work's text included), as a share of the most a turn could score.
    Words are counted as the ranking function counts them (`shipped_ranking`)."""
    match = " OR ".join(f'"{term}"' for term in query_terms)
    with engine_of(index).connect() as conn:
        function, counted = shipped_ranking(conn)
        sql = (
            f"SELECT t.turn_id, -{function}, t.asked, t.answered,"
            " t.files, t.work FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid"
            " WHERE turns_fts MATCH :m" + (" AND t.project = :p" if project else "")
        )
        count = text("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :m")
        rows = fts.indexed_rows(conn)
        term_idf = {
            term: idf(rows, conn.execute(count, {"m": f'{counted}"{term}"'}).scalar_one())
            for term in query_terms
        }
        found = conn.execute(text(sql), {"m": match, "p": project})
        return {
            str(turn_id): share_of_best(
                float(score) + exact_form_bonus(query_terms, t, term_idf),
                [score_bound(value) for value in term_idf.values()],
            )
            for turn_id, score, *t in found
        }


def assert_top_k(hits: list[Hit], truth: dict[str, float], k: int) -> None:
    """`hits` are the exhaustive ranking's best `k`: the same scores, and each hit's own score.
    (Exact ties may be broken either way: their sums can differ in the last bit.)"""
    best = sorted(truth.values(), reverse=True)[:k]
    assert [hit.score for hit in hits] == pytest.approx(best, rel=1e-9)
    for hit in hits:
        assert hit.score == pytest.approx(truth[hit.turn_id], rel=1e-9)

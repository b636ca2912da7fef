"""The fast full-text path returns what exhaustive bm25 returns, scored the same, on small data.

The postings budget is shrunk so that small data takes the paths a million turns would: rare
terms ranked by FTS5, common terms added in Python, and the newest-turns window.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex, fts_search

NOW = datetime.now(UTC)


@pytest.fixture
def index(tmp_path: Path) -> HistoryIndex:
    index = HistoryIndex.open(tmp_path / "history.db")
    for n in range(80):
        asked = "parser cache " * (n % 4) + ("zeppelin " * (1 + n % 3) if n % 8 == 0 else "")
        index.record(
            turn_id=f"t{n:02d}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 2}",
            asked=asked + f"step {n}",
            answered="the parser and the cache " * (n % 5),
            files=[f"src/mod{n % 7}.py"],
            asked_at=NOW - timedelta(hours=80 - n),
        )
    return index


def exhaustive(
    index: HistoryIndex, query_terms: list[str], project: str | None
) -> dict[str, float]:
    """bm25 of every matching turn, as FTS5 computes it with every term in the MATCH."""
    assert index.engine is not None
    match = " OR ".join(f'"{term}"' for term in query_terms)
    sql = (
        "SELECT t.turn_id, -bm25(turns_fts, 3.0, 1.0, 1.0) FROM turns_fts JOIN turns t"
        " ON t.id = turns_fts.rowid WHERE turns_fts MATCH :m"
        + (" AND t.project = :p" if project else "")
    )
    with index.engine.connect() as conn:
        rows = conn.execute(text(sql), {"m": match, "p": project})
        return {str(turn_id): float(score) for turn_id, score in rows}


@pytest.mark.parametrize("project", [None, "/p0"])
def test_common_terms_added_in_python_score_exactly_as_fts5(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch, project: str | None
) -> None:
    monkeypatch.setattr(fts_search, "POSTINGS_BUDGET", 12)  # zeppelin (10) is all FTS5 gets
    truth = exhaustive(index, ["zeppelin", "parser", "cache"], project)
    hits = index.search("zeppelin parser cache", project=project, k=5)
    best = sorted(truth, key=lambda turn_id: -truth[turn_id])[:5]
    assert [hit.turn_id for hit in hits] == best
    for hit in hits:
        assert hit.score == pytest.approx(truth[hit.turn_id], rel=1e-9)


def test_when_every_term_fits_the_budget_the_ranking_is_fts5s(index: HistoryIndex) -> None:
    truth = exhaustive(index, ["parser", "cache"], None)
    hits = index.search("parser cache", k=10)
    assert [hit.turn_id for hit in hits] == sorted(truth, key=lambda t: (-truth[t], -int(t[1:])))[
        :10
    ]


def test_a_word_too_common_for_the_budget_is_searched_in_the_newest_turns(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "POSTINGS_BUDGET", 20)
    hits = index.search("step", k=5)  # in all 80 turns
    assert len(hits) == 5
    assert all(int(hit.turn_id[1:]) >= 60 for hit in hits)  # from the newest quarter


def test_document_frequencies_are_cached_and_refreshed_as_the_index_grows(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "CACHE_FROM_ROWS", 0)
    search = index._repository._fts  # type: ignore[attr-defined]
    index.search("zeppelin")
    assert search._document_frequency["zeppelin"] == 10
    for n in range(20):
        index.record(
            turn_id=f"new{n}",
            session_id="new",
            project="/p0",
            asked="zeppelin again",
            answered="",
        )
    index.search("zeppelin")
    assert search._document_frequency["zeppelin"] == 30


def test_a_word_searched_before_it_was_recorded_is_found_after(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: a cached document frequency of 0 dropped the word from later searches until
    # the index had grown by a tenth.
    monkeypatch.setattr(fts_search, "CACHE_FROM_ROWS", 0)
    assert index.search("quokka") == []
    index.record(turn_id="q", session_id="q", project="/p0", asked="the quokka bug", answered="")
    assert [hit.turn_id for hit in index.search("quokka")] == ["q"]


def test_an_update_of_the_project_alone_reindexes_the_row(index: HistoryIndex) -> None:
    # project_tag is computed from project, so turns_au must watch project itself.
    assert index.engine is not None
    with index.engine.begin() as conn:
        conn.execute(text("UPDATE turns SET project = '/moved' WHERE turn_id = 't00'"))
    assert [hit.turn_id for hit in index.search("zeppelin", project="/moved")] == ["t00"]
    assert "t00" not in [hit.turn_id for hit in index.search("zeppelin", project="/p0", k=10)]

"""recall_bm25, the compiled ranking function that is given each word's count instead of
reading its posting list, scores every row as FTS5's bm25() does; where it cannot load, the
index opens and searches all the same, with bm25()."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex
from history.store.sqlite import rank_extension
from tests.helpers.engines import engine_of

NOW = datetime.now(UTC)
BM25 = "bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0)"
MATCH = '("parser") AND ("cache" OR "zeppelin")'


def fill(index: HistoryIndex) -> None:
    for n in range(60):
        index.record(
            turn_id=f"t{n:02d}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 2}",
            asked="parser " * (n % 3) + ("zeppelin" if n % 7 == 0 else "") + f" step {n}",
            answered="the cache and the parser " * (n % 4),
            files=[f"src/mod{n % 5}.py"],
            asked_at=NOW - timedelta(hours=60 - n),
            work="$ make parser\n! cache miss" if n % 5 == 0 else "",
        )


def scores(index: HistoryIndex, function: str, **counts: int | None) -> list[tuple[int, float]]:
    sql = f"SELECT rowid, {function} FROM turns_fts WHERE turns_fts MATCH :m ORDER BY rowid"
    with engine_of(index).connect() as conn:
        return [(int(r), float(s)) for r, s in conn.execute(text(sql), {"m": MATCH, **counts})]


def counted(index: HistoryIndex, word: str) -> int:
    sql = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :m"
    with engine_of(index).connect() as conn:
        return int(conn.execute(text(sql), {"m": f'"{word}"'}).scalar_one())


@pytest.fixture
def index(tmp_path: Path) -> HistoryIndex:
    if rank_extension.library_path() is None:
        missing = "this install has no compiled recall_bm25 (pip install -e . builds it)"
        if os.environ.get("CI"):
            pytest.fail(f"{missing} (CI=true: make test builds it, so its tests must run)")
        pytest.skip(missing)
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    return index


def test_given_the_counts_recall_bm25_scores_every_row_as_bm25_does(index: HistoryIndex) -> None:
    words = ("parser", "cache", "zeppelin")
    given = {word: counted(index, word) for word in words}
    function = "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, :parser, :cache, :zeppelin)"
    with engine_of(index).connect() as conn:  # this install built it: every connection has it
        assert conn.connection.info[rank_extension.FUNCTION] is True
    exact = scores(index, BM25)
    assert len(exact) > 10
    assert scores(index, function, **given) == exact


def test_a_count_not_given_is_counted_as_bm25_counts_it(index: HistoryIndex) -> None:
    function = "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, NULL, :cache, 0)"
    assert scores(index, function, cache=counted(index, "cache")) == scores(index, BM25)
    assert scores(index, "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0)") == scores(index, BM25)


def test_a_library_that_will_not_load_leaves_search_to_bm25(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "_recallrank.so"
    broken.write_bytes(b"not a shared library")
    monkeypatch.setattr(rank_extension, "library_path", lambda: str(broken))
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    with engine_of(index).connect() as conn:
        assert conn.connection.info[rank_extension.FUNCTION] is False
    hits = index.search("zeppelin parser", k=3)
    assert [hit.turn_id for hit in hits] and "zeppelin" in hits[0].asked
    index.close()


@pytest.mark.parametrize("keep", [1, 3, 10])
def test_told_the_rows_kept_recall_bm25_keeps_bm25s_best_with_their_scores(
    index: HistoryIndex, keep: int
) -> None:
    # Rows that cannot be among the best `keep` are not given their length, nor their score.
    order = f" ORDER BY 2, rowid DESC LIMIT {keep}"
    function = f"recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, NULL, NULL, NULL, {keep})"
    with engine_of(index).connect() as conn:
        ranked = {
            name: list(
                conn.execute(
                    text(f"SELECT rowid, {sql} FROM turns_fts WHERE turns_fts MATCH :m" + order),
                    {"m": MATCH},
                )
            )
            for name, sql in (("kept", function), ("bm25", BM25))
        }
    assert ranked["kept"] == ranked["bm25"]


def test_recall_phrases_says_which_phrases_of_the_match_a_row_holds(index: HistoryIndex) -> None:
    sql = (
        "SELECT t.asked || ' ' || t.answered || ' ' || t.work, recall_phrases(turns_fts)"
        " FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid WHERE turns_fts MATCH :m"
    )
    with engine_of(index).connect() as conn:
        rows = list(conn.execute(text(sql), {"m": MATCH}))
    assert len(rows) > 10
    for said, mask in rows:
        words = said.split()
        held = [word in words for word in ("parser", "cache", "zeppelin")]
        assert [bool(mask >> bit & 1) for bit in range(3)] == held, (said, mask)

"""recall_bm25, the compiled ranking function that is given each word's count instead of
reading its posting list, scores every row as FTS5's bm25() does where no turn has work, and as
history/ranking.py's bm25 where turns have (the work's hits score, but the work counts in no
length nor any word's count of turns); where it cannot load, the index opens and searches all
the same, with bm25()."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex
from history.query import stem, words
from history.ranking import COLUMN_WEIGHTS, bm25_scores
from history.store.sqlite import rank_extension, word_counts
from tests.helpers.engines import engine_of
from tests.helpers.templates import migrated_copy

NOW = datetime.now(UTC)
BM25 = "bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0)"
MATCH = '("parser") AND ("cache" OR "zeppelin")'


def fill(index: HistoryIndex, work: bool = True) -> None:
    for n in range(60):
        index.record(
            turn_id=f"t{n:02d}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 2}",
            asked="parser " * (n % 3) + ("zeppelin" if n % 7 == 0 else "") + f" step {n}",
            answered="the cache and the parser " * (n % 4),
            files=[f"src/mod{n % 5}.py"],
            asked_at=NOW - timedelta(hours=60 - n),
            # Every fifth turn's work names the query's words; zeppelin, in a few questions,
            # also in the work of turns that never asked about it.
            work=f"$ make parser\n! cache miss\n~ src/cache.py\n+ cache = {n}\n+ parser = cache"
            + ("\n+ zeppelin = None" if n % 10 == 5 else "")
            if work and n % 5 == 0
            else "",
        )


def scores(index: HistoryIndex, function: str, **counts: int | None) -> list[tuple[int, float]]:
    sql = f"SELECT rowid, {function} FROM turns_fts WHERE turns_fts MATCH :m ORDER BY rowid"
    with engine_of(index).connect() as conn:
        return [(int(r), float(s)) for r, s in conn.execute(text(sql), {"m": MATCH, **counts})]


def counted(index: HistoryIndex, word: str) -> int:
    """The turns holding `word` outside their work: the count recall_bm25 ranks with."""
    sql = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :m"
    match = f'{{asked answered files}} : "{word}"'
    with engine_of(index).connect() as conn:
        return int(conn.execute(text(sql), {"m": match}).scalar_one())


def reference(index: HistoryIndex) -> list[tuple[int, float]]:
    """history/ranking.py's bm25 of every row MATCH finds, from the turns' own text: the
    definition recall_bm25 computes (the project tag a fifth column, of one token, no weight)."""
    with engine_of(index).connect() as conn:
        rows = conn.execute(
            text("SELECT id, asked, answered, files, work, project_tag FROM turns ORDER BY id")
        ).all()
    documents = [tuple(words(value or "") for value in row[1:]) for row in rows]
    terms = ("parser", "cache", "zeppelin")
    found, _ = bm25_scores(documents, terms, len(rows), (*COLUMN_WEIGHTS, 0.0))
    by_id = dict(zip((row[0] for row in rows), found, strict=True))
    return [(rowid, -by_id[rowid]) for rowid, _ in scores(index, BM25)]


def _compiled() -> None:
    if rank_extension.library_path() is None:
        missing = "this install has no compiled recall_bm25 (pip install -e . builds it)"
        if os.environ.get("CI"):
            pytest.fail(f"{missing} (CI=true: make test builds it, so its tests must run)")
        pytest.skip(missing)


@pytest.fixture
def index(tmp_path: Path) -> HistoryIndex:
    """Sixty turns, every fifth with work that names the query's words."""
    _compiled()
    index = HistoryIndex.open(migrated_copy(tmp_path / "history.db"))
    fill(index)
    return index


@pytest.fixture
def workless(tmp_path: Path) -> HistoryIndex:
    """The same turns without work."""
    _compiled()
    index = HistoryIndex.open(migrated_copy(tmp_path / "history.db"))
    fill(index, work=False)
    return index


def test_given_the_counts_recall_bm25_scores_every_row_as_bm25_does(
    workless: HistoryIndex,
) -> None:
    words = ("parser", "cache", "zeppelin")
    given = {word: counted(workless, word) for word in words}
    function = "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, :parser, :cache, :zeppelin)"
    with engine_of(workless).connect() as conn:  # this install built it: every connection has it
        assert conn.connection.info[rank_extension.FUNCTION] is True
    exact = scores(workless, BM25)
    assert len(exact) > 10
    assert scores(workless, function, **given) == exact


def test_a_count_not_given_is_counted_as_bm25_counts_it(workless: HistoryIndex) -> None:
    function = "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, NULL, :cache, 0)"
    assert scores(workless, function, cache=counted(workless, "cache")) == scores(workless, BM25)
    bare = "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0)"
    assert scores(workless, bare) == scores(workless, BM25)


def test_with_work_recall_bm25_scores_every_row_as_the_python_definition(
    index: HistoryIndex,
) -> None:
    words = ("parser", "cache", "zeppelin")
    given = {word: counted(index, word) for word in words}
    expected = reference(index)
    assert len(expected) > 10
    for function, counts in (
        ("recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, :parser, :cache, :zeppelin)", given),
        # Counts not given are counted as the search counts them.
        ("recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, NULL, :cache, 0)", given),
        ("recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0)", {}),
    ):
        counts = {word: n for word, n in counts.items() if f":{word}" in function}
        found = scores(index, function, **counts)
        assert [rowid for rowid, _ in found] == [rowid for rowid, _ in expected]
        for (_, score), (_, want) in zip(found, expected, strict=True):
            assert score == pytest.approx(want, rel=1e-12)
    # Here the work does count: bm25() ranks the same rows otherwise.
    assert scores(index, BM25) != expected


def test_the_count_a_search_keeps_leaves_out_the_work(index: HistoryIndex) -> None:
    with engine_of(index).connect() as conn:
        for word in ("parser", "cache", "make", "miss"):
            assert word_counts.count(conn, stem(word), word) == counted(index, word), word
        # Twelve turns say "make" and "miss", all in their work.
        assert word_counts.count(conn, "make") == 0
        assert word_counts.count(conn, "miss") == 0
        assert counted(index, "cache") < 50 < 60


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
@pytest.mark.parametrize("work", [False, True])
def test_told_the_rows_kept_recall_bm25_keeps_bm25s_best_with_their_scores(
    tmp_path: Path, keep: int, work: bool
) -> None:
    # Rows that cannot be among the best `keep` are not given their length, nor their score:
    # the best `keep` are the exhaustive ranking's (bm25()'s without work).
    _compiled()
    index = HistoryIndex.open(migrated_copy(tmp_path / "history.db"))
    fill(index, work=work)
    order = f" ORDER BY 2, rowid DESC LIMIT {keep}"
    function = f"recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0, NULL, NULL, NULL, {keep})"
    exhaustive = "recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0)" if work else BM25
    with engine_of(index).connect() as conn:
        ranked = {
            name: list(
                conn.execute(
                    text(f"SELECT rowid, {sql} FROM turns_fts WHERE turns_fts MATCH :m" + order),
                    {"m": MATCH},
                )
            )
            for name, sql in (("kept", function), ("exhaustive", exhaustive))
        }
    assert ranked["kept"] == ranked["exhaustive"]


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

"""The common words' counts kept beside FTS5 (history/store/sqlite/word_counts.py): the upkeep
counts them, a search ranks with them while they are fresh, and a forget or a rewrite leaves none
behind.

Small data takes the paths a million turns would: every word is common (LIST_FROM_ROWS 1) and a
search reads the kept counts from the first turn on (CACHE_FROM_ROWS 1).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex, upkeep
from history.query import stem
from history.store.sqlite import fts_search, rank_extension, word_counts
from tests.helpers.engines import engine_of
from tests.helpers.lists import lists_compiled, use_small_lists
from tests.helpers.oracle import assert_top_k, exhaustive
from tests.helpers.templates import new_index

pytestmark = pytest.mark.skipif(
    rank_extension.library_path() is None, reason="recall_best_turns is not compiled here"
)

NOW = datetime.now(UTC)
WORDS = ["parser", "cache", "lexer", "token", "buffer", "socket", "thread", "zeppelin"]


@pytest.fixture(autouse=True)
def small_data(monkeypatch: pytest.MonkeyPatch) -> None:
    use_small_lists(monkeypatch, up_to_share=0.5)  # the commonest: counted, no list
    monkeypatch.setattr(fts_search, "CACHE_FROM_ROWS", 1)
    monkeypatch.setattr(upkeep, "QUIET_SECONDS", 3600.0)  # the upkeep runs when told (tidy)


def record(index: HistoryIndex, n: int, rng: random.Random) -> None:
    weights = range(len(WORDS), 0, -1)
    index.record(
        turn_id=f"t{n:03d}",
        session_id=f"s{n // 10}",
        project=f"/p{n % 2}",
        asked=" ".join(rng.choices(WORDS, weights=weights, k=rng.randint(1, 6))),
        answered=" ".join(rng.choices(WORDS, weights=weights, k=rng.randint(0, 30))),
        asked_at=NOW - timedelta(minutes=1000 - n),
    )


@pytest.fixture
def index(tmp_path: Path) -> HistoryIndex:
    index = new_index(tmp_path / "history.db")
    rng = random.Random(7)
    for n in range(150):
        record(index, n, rng)
    lists_compiled(index)
    assert index.tidy()  # the upkeep builds the lists and counts the words
    return index


def kept(index: HistoryIndex) -> dict[str, int]:
    with engine_of(index).connect() as conn:
        rows = conn.exec_driver_sql(f"SELECT word, holding FROM {word_counts.TABLE}").all()
    return {str(word): int(holding) for word, holding in rows}


def holding(index: HistoryIndex, word: str) -> int:
    with engine_of(index).connect() as conn:
        sql = text("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :w")
        return int(conn.execute(sql, {"w": f'"{word}"'}).scalar_one())


def reopened(index: HistoryIndex) -> HistoryIndex:
    """The same file in a fresh process's state: no counts cached yet."""
    path = engine_of(index).url.database
    index.close()
    assert path is not None
    return HistoryIndex.open(path)


def test_the_upkeep_counts_every_common_word_listed_or_not(index: HistoryIndex) -> None:
    counts = kept(index)
    assert {stem(word) for word in WORDS} <= set(counts)
    assert {stem(word): holding(index, word) for word in WORDS} == counts
    assert holding(index, "parser") > 0.5 * 150  # counted, though too common for a list


def test_a_search_ranks_with_the_kept_counts_while_they_are_fresh(
    index: HistoryIndex,
) -> None:
    with engine_of(index).begin() as conn:  # a wrong count, to see whether the search reads it
        conn.exec_driver_sql(
            f"UPDATE {word_counts.TABLE} SET holding = holding / 3 WHERE word = 'token'"
        )
    index = reopened(index)
    hits = index.search("token lexer", k=5)
    with pytest.raises(AssertionError):
        assert_top_k(hits, exhaustive(index, ["token", "lexer"], None), 5)
    rng = random.Random(8)
    for n in range(150, 153):  # 2% more turns: the kept counts are stale now
        record(index, n, rng)
    assert_top_k(index.search("token lexer", k=5), exhaustive(index, ["token", "lexer"], None), 5)


def test_a_forget_empties_the_counts_and_the_upkeep_counts_again(index: HistoryIndex) -> None:
    assert kept(index)
    assert index.forget_session("s3") == 10
    assert kept(index) == {}  # in the forget's own transaction
    index = reopened(index)
    query = ["parser", "cache", "zeppelin"]
    assert_top_k(index.search(" ".join(query), k=5), exhaustive(index, query, None), 5)
    assert index.tidy()
    assert kept(index)[stem("parser")] == holding(index, "parser")


def test_a_rewritten_turn_empties_the_counts(index: HistoryIndex) -> None:
    assert kept(index)
    index.record(
        turn_id="t010",
        session_id="s1",
        project="/p0",
        asked="zeppelin zeppelin",
        answered="",
        asked_at=NOW - timedelta(minutes=990),
    )
    assert kept(index) == {}
    index = reopened(index)
    assert_top_k(index.search("zeppelin", k=3), exhaustive(index, ["zeppelin"], None), 3)

"""A search ended early by its common words' lists (history/store/sqlite/listed_rest.py): once
the rarer words' turns are ranked, the turns holding only words with a list are bounded by those
lists, not by each word's ceiling.

Small data takes the paths a million turns would: 400 turns on eight topics (each in a third of
them or so, a list 6 turns deep each) and four rare words (in 3% of them: no list), and every
search tries the lists however few turns its words hold (WORTH_FROM_ROWS 0).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from history import HistoryIndex
from history.store.sqlite import best_turns, exact_forms, fts_search, listed_rest, rank_extension
from history.store.sqlite.best_turns import BestTurns
from tests.helpers.lists import lists_compiled, use_small_lists
from tests.helpers.oracle import assert_top_k, exhaustive
from tests.helpers.templates import built_copy

pytestmark = pytest.mark.skipif(
    rank_extension.library_path() is None, reason="recall_best_turns is not compiled here"
)

NOW = datetime.now(UTC)
TOPICS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
RARE = ["zulu", "yankee", "xray", "whiskey"]
SHIPPED_UP_TO_SHARE = best_turns.LIST_UP_TO_SHARE  # the words in nearly every turn: no list
QUERIES = [
    "zulu alpha bravo",
    "yankee charlie delta echo",
    "xray golf",
    "whiskey hotel alpha",
    "alpha bravo",
    "zulu yankee golf hotel",
]


@pytest.fixture(autouse=True)
def small_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    use_small_lists(monkeypatch, up_to_share=SHIPPED_UP_TO_SHARE)
    monkeypatch.setattr(listed_rest, "WORTH_FROM_ROWS", 0)


def fill(index: HistoryIndex) -> None:
    rng = random.Random(3)
    for n in range(400):
        words = []
        for topic in rng.sample(TOPICS, rng.randint(1, 3)):
            words += [topic] * min(8, int(rng.expovariate(0.6)) + 1)
        if n % 8 == 7:
            words.append(RARE[n // 8 % len(RARE)])
        rng.shuffle(words)
        index.record(
            turn_id=f"t{n:03d}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 2}",
            asked=" ".join(words[:3]),
            answered=" ".join(words[3:]) + f" filler{n}" * rng.randint(0, 12),
            asked_at=NOW - timedelta(minutes=1000 - n),
        )
    assert index.tidy()  # the upkeep builds the lists (with the small lists set above)


@pytest.fixture
def index(tmp_path: Path) -> HistoryIndex:
    return lists_compiled(built_copy(tmp_path / "history.db", __name__, fill))


@pytest.fixture
def proofs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether the lists proved each search's top k, each time a search asked them."""
    asked: list[bool] = []
    prove = fts_search._Search._proven_by_lists

    def watched(search: fts_search._Search, start: int) -> bool:
        asked.append(prove(search, start))
        return asked[-1]

    monkeypatch.setattr(fts_search._Search, "_proven_by_lists", watched)
    yield asked


@pytest.mark.parametrize("project", [None, "/p1"])
@pytest.mark.parametrize("query", QUERIES)
def test_a_search_the_lists_end_early_is_the_exhaustive_ranking(
    index: HistoryIndex, proofs: list[bool], query: str, project: str | None
) -> None:
    hits = index.search(query, project=project, k=5)
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, query.split(), project), 5)


@pytest.mark.parametrize("project", [None, "/p1"])
@pytest.mark.parametrize("query", QUERIES)
def test_in_parts_rarest_word_first_the_lists_end_it_exactly(
    index: HistoryIndex,
    proofs: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    project: str | None,
) -> None:
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    hits = index.search(query, project=project, k=5)
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, query.split(), project), 5)


def test_the_lists_end_searches_before_their_common_words_turns_are_ranked(
    index: HistoryIndex, proofs: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    ranked: list[str] = []
    rank = fts_search._ranked

    def watched(conn, part, *args, **kwargs):  # type: ignore[no-untyped-def]
        ranked.append(part.match)
        return rank(conn, part, *args, **kwargs)

    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    monkeypatch.setattr(fts_search, "_ranked", watched)
    hits = index.search("zulu alpha bravo", k=5)
    assert proofs[-1]
    assert ranked == ['("zulu") AND ("alpha" OR "bravo")', '(("zulu") NOT ("alpha" OR "bravo"))']
    assert_top_k(hits, exhaustive(index, ["zulu", "alpha", "bravo"], None), 5)


def test_turns_recorded_after_the_lists_were_built_are_ranked_too(
    tmp_path: Path, proofs: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(best_turns, "DEPTH", 60)  # deep enough to prove a top 10
    monkeypatch.setattr(listed_rest, "MOST_LOOKED_UP", 1000)
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    index.record(
        turn_id="newest",
        session_id="s-new",
        project="/p0",
        asked="alpha bravo " * 8,
        answered="",
        asked_at=NOW + timedelta(minutes=1),
    )
    hits = index.search("zulu alpha bravo", k=10)  # the upkeep has not run: no list holds it
    assert proofs[-1]
    assert "newest" in [hit.turn_id for hit in hits]
    assert_top_k(hits, exhaustive(index, ["zulu", "alpha", "bravo"], None), 10)
    index.close()


def test_a_listed_turn_missing_from_another_list_may_still_pass_by_that_words_share() -> None:
    """Turn 3 is in the list of `a` only: it may hold `b` too, scoring up to what `b`'s list
    left out, so it is one to rank though what the lists give it is below the k-th best."""
    idf = {"a": 1.0, "b": 1.0}
    lists = {
        "a": BestTurns(9, 10.0, 0.5, [(1, 4.0, 10), (3, 1.0, 10)]),
        "b": BestTurns(9, 10.0, 0.5, [(1, 4.0, 10)]),
    }
    known = best_turns.score(1.0, 1.0, 10, 10.0)
    b_left_out = lists["b"].left_out(1.0, 10.0)
    bonus = exact_forms.largest_bonus(["a", "b"], idf)
    bar = known + bonus + b_left_out / 2  # turn 7's score, the 2nd best
    rest = listed_rest.bounded(lists, [], idf, 10.0, {7: bar}, 2)
    assert rest.could_pass == [1, 3]
    left_out = sum(listed.left_out(1.0, 10.0) for listed in lists.values())
    assert rest.unseen == pytest.approx(left_out + bonus)

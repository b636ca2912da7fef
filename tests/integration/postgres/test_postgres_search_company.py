"""A part of the search asks only for the turns that also hold enough of the other query words
to pass the k-th best score (search_bounds.company): its top 5 stays the exhaustive ranking's
over queries mixing words of every frequency, wherever in a turn the words are."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.postgres import search, search_bounds
from tests.helpers.pg_oracle import exhaustive

# Words in about 2%, 5%, 10%, 20% and 35% of the turns: weights from ~3.9 down to ~0.6, so a
# common word's turns with a rarer word in the answer compete with a rarer word's own turns.
TIERS = [[f"w{share}x{n}" for n in range(count)] for share, count in ((2, 40), (5, 16), (10, 8))]
TIERS += [["often1", "often2", "often3"], ["usual"]]


def words_of(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(rng.choice(TIERS)) for _ in range(count))


@pytest.fixture(scope="module")
def index(postgres_url_for_module: str) -> Any:
    opened = HistoryIndex.open(postgres_url_for_module)
    rng, now = random.Random(11), datetime.now(UTC)
    turns = [
        ImportedTurn(
            turn_id=f"t{n}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 2}",
            asked=words_of(rng, rng.randint(1, 6)),
            answered=words_of(rng, rng.randint(0, 30)),
            files=(f"src/{words_of(rng, 1)}.py",) if n % 3 else (),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(minutes=n),
        )
        for n in range(500)
    ]
    assert opened.record_many(turns).new == 500
    yield opened
    opened.close()


def mixed_queries(count: int) -> list[list[str]]:
    rng = random.Random(3)
    queries = []
    for _ in range(count):
        tiers = rng.sample(range(len(TIERS)), rng.randint(2, 4))
        queries.append(list(dict.fromkeys(rng.choice(TIERS[tier]) for tier in tiers)))
    return queries


QUERIES = mixed_queries(100)


@pytest.mark.parametrize("project", [None, "/p1"])
@pytest.mark.parametrize("words", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_asking_only_for_turns_with_enough_company_keeps_the_exhaustive_top_5(
    index: HistoryIndex, words: list[str], project: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", 0)  # every search part by part
    found = [hit.turn_id for hit in index.search(" ".join(words), project=project, k=5)]
    assert found == exhaustive(index, words, project)


def test_a_part_whose_own_word_cannot_pass_the_bar_asks_for_just_enough_company() -> None:
    weights = [3.0, 1.0, 1.0, 0.5]
    # The commonest word's turns (i=3, 0.5 at most) add each other word's tail ceiling (0.4x):
    # the rare word alone lifts them to 1.7, the two middling ones only together to 1.3.
    assert search_bounds.company(weights, 3, True, True, bar=1.29) == [(0,), (1, 2)]
    assert search_bounds.company(weights, 3, True, True, bar=1.3) == [(0,)]
    assert search_bounds.company(weights, 3, True, True, bar=0.49) is None
    assert search_bounds.company(weights, 3, True, True, bar=2.5) == []
    # Before the pairs were all ranked, a later word may be in the question too (1.0x).
    assert search_bounds.company(weights, 1, True, False, bar=1.9) == [(0,), (2,)]


def test_a_turn_holding_two_words_in_its_question_must_hold_enough_of_them_past_the_bar() -> None:
    # Any of its words may be in its question (up to 1 each, or 0.766 once their repeats were
    # ranked): past 3.5 it needs the rare word and one more, never the weak word alone with it.
    weights = [3.0, 1.0, 1.0, 0.5]
    assert search_bounds.enough_words(weights, bar=3.5) == [(0, 1), (0, 2)]
    assert search_bounds.enough_words(weights, bar=1.4) is None  # every pair may pass
    assert search_bounds.enough_words(weights, bar=5.5) == []  # none can
    assert search_bounds.enough_words(weights, bar=3.3) == [(0, 1), (0, 2), (0, 3)]
    once = [0.766, 1.0, 1.0, 1.0]  # the rare word's repeats ranked: 2.298 at most
    found = search_bounds.enough_words(weights, bar=3.3, question=once)
    assert found == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]

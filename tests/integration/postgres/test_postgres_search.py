"""The tsvector search ranks in parts, rarest word first, and stops once no turn left can reach
the top k: its answer is the exhaustive ranking's (every match scored, then LIMIT k)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.postgres import schema, search, search_bounds
from tests.helpers.engines import engine_of
from tests.helpers.pg_oracle import exhaustive

COMMON, MIDDLING = ["alpha", "beta", "gamma"], [f"mid{n}" for n in range(30)]
RARE = [f"rare{n}" for n in range(300)]


def text_of(rng: random.Random, words: int) -> str:
    pool = rng.choices([COMMON, MIDDLING, RARE], weights=[6, 3, 1], k=words)
    return " ".join(rng.choice(group) for group in pool)


@pytest.fixture(scope="module")
def index(postgres_url_for_module: str) -> Any:
    opened = HistoryIndex.open(postgres_url_for_module)
    rng, now = random.Random(5), datetime.now(UTC)
    turns = [
        ImportedTurn(
            turn_id=f"t{n}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 3}",
            asked=text_of(rng, 8),
            answered=text_of(rng, 40),
            files=(f"src/{rng.choice(RARE)}.py",),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(minutes=n),
        )
        for n in range(600)
    ]
    assert opened.record_many(turns).new == 600
    yield opened
    opened.close()


QUERIES = [
    ["alpha"], ["rare7"], ["rare7", "alpha"], ["mid3", "beta", "rare11"], ["mid1", "mid2"],
    ["gamma", "beta", "alpha"], ["rare299", "rare298", "mid0"], ["nothing"],
]  # fmt: skip


@pytest.mark.parametrize("one_statement", [0, search.ONE_STATEMENT_ROWS], ids=["parts", "one"])
@pytest.mark.parametrize("project", [None, "/p1"])
@pytest.mark.parametrize("words", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_the_parts_give_the_exhaustive_top_5(
    index: HistoryIndex,
    words: list[str],
    project: str | None,
    one_statement: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Few matches are ranked in one statement; `parts` makes every search go part by part.
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", one_statement)
    found = [hit.turn_id for hit in index.search(" ".join(words), project=project, k=5)]
    assert found == exhaustive(index, words, project)


PLACES = st.lists(st.sampled_from(["asked", "files", "answered"]), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(places=PLACES, filler=st.integers(min_value=0, max_value=300))
def test_a_word_outside_the_question_ranks_below_any_in_it(
    index: HistoryIndex, places: list[str], filler: int
) -> None:
    # The search stops on these ceilings (search_bounds.bound): a turn holding the word in its
    # question scores under HEAD_CEILING, one holding it only elsewhere under TAIL_CEILING.
    texts = {"asked": ["lead"], "files": ["src/x.py"], "answered": ["pad"] * filler}
    for place in places:
        texts[place].append("needle")
    with engine_of(index).connect() as conn:
        rank = conn.execute(
            text(
                f"SELECT ts_rank('{search.WEIGHTS}', {schema.vector_expression(schema.WITH_TAG)},"
                " plainto_tsquery('simple', 'needle')) FROM (SELECT CAST(:asked AS text) AS asked,"
                " CAST(:files AS text) AS files, CAST(:answered AS text) AS answered,"
                " CAST('/p' AS text) AS project) AS turn"
            ),
            {place: " ".join(words) for place, words in texts.items()},
        ).scalar_one()
    ceiling = search_bounds.HEAD_CEILING if "asked" in places else search_bounds.TAIL_CEILING
    assert 0 < rank <= ceiling

"""A project's own identifier, in most of its turns and in no other project's, is planned by its
count in that project (upkeep's sample, project_words.py), not by its count everywhere times the
project's share: at 1M turns that estimate fell 24 times short and one statement ranked 13,200
rows where the project's budget was 1,200."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.postgres import project_index, project_words, question_index, search
from tests.helpers.engines import engine_of
from tests.helpers.postgres import ranking_calls

PROJECTS, TURNS_EACH = 12, 100
OWN = "/p3"


@pytest.fixture(scope="module")
def index(postgres_url_for_module: str) -> Any:
    opened = HistoryIndex.open(postgres_url_for_module)
    now = datetime.now(UTC)
    turns = [
        ImportedTurn(
            turn_id=f"t{p}-{n}",
            session_id=f"s{p}-{n // 10}",
            project=f"/p{p}",
            # One project's own identifier: in the question of a tenth of its turns, in the
            # answer of most.
            asked=f"step {n} of the zorbleflux" if f"/p{p}" == OWN and n % 10 == 0 else "step",
            answered="renamed zorbleflux again" if f"/p{p}" == OWN and n % 5 else "done",
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(minutes=p * TURNS_EACH + n),
        )
        for p in range(PROJECTS)
        for n in range(TURNS_EACH)
    ]
    assert opened.record_many(turns).new == PROJECTS * TURNS_EACH
    with engine_of(opened).begin() as conn:
        project_words.refill(conn)  # what upkeep runs with ANALYZE after many writes
    yield opened
    opened.close()


def test_upkeep_counts_a_projects_own_identifier_in_that_project_only(index: HistoryIndex) -> None:
    with engine_of(index).connect() as conn:
        assert project_words.in_project(conn, OWN, ["zorbleflux", "absent"]) == {"zorbleflux": 90}
        assert project_words.in_project(conn, "/p4", ["zorbleflux"]) == {}


def test_a_projects_own_identifier_is_not_ranked_in_one_statement_over_every_match(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its 90 turns in the project are 90 / 12 ≈ 8 by the share, under the one statement's 20:
    # that statement would rank all 90. The parts rank the turns naming it in their question
    # first and stop once no turn naming it only in the answer can pass them.
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", 20)
    sent, found = ranking_calls(index, "zorbleflux", OWN)
    assert [hit.turn_id for hit in found] == ["t3-0", "t3-10", "t3-20", "t3-30", "t3-40"]
    assert not found.approximate
    # Each statement asks for the turns naming it in their question: the repeats' in the
    # question's index, the others in the project's (its question words, project_index.py),
    # whose lexemes there begin with the project's question prefix.
    asked = project_index.prefix(OWN, project_index.ASKED)
    assert sent and all(
        question_index.QUESTION_WORDS in sql
        or any(asked in str(value) for value in values.values())
        for sql, values in sent
    )


def test_a_forgotten_projects_sample_goes_with_its_turns(postgres_url: str) -> None:
    index = HistoryIndex.open(postgres_url)
    now = datetime.now(UTC)
    for n in range(20):
        index.record(
            turn_id=f"t{n}",
            session_id=f"s{n % 2}",
            project="/gone",
            asked="rename the zorbleflux",
            answered="done",
            asked_at=now - timedelta(minutes=n),
        )
    with engine_of(index).begin() as conn:
        project_words.refill(conn)
        assert project_words.in_project(conn, "/gone", ["zorbleflux"]) == {"zorbleflux": 20}
    index.forget_project("/gone")
    with engine_of(index).connect() as conn:
        assert project_words.in_project(conn, "/gone", ["zorbleflux"]) == {}
    index.close()

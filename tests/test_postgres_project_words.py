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
from history.store.postgres import project_words, search

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
            asked=f"step {n} of the work",
            # Only the answers of most of one project's turns name its own identifier.
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
    assert opened.engine is not None
    with opened.engine.begin() as conn:
        project_words.refill(conn)  # what upkeep runs with ANALYZE after many writes
    yield opened
    opened.close()


def test_upkeep_counts_a_projects_own_identifier_in_that_project_only(index: HistoryIndex) -> None:
    assert index.engine is not None
    with index.engine.connect() as conn:
        assert project_words.in_project(conn, OWN, ["zorbleflux", "absent"]) == {"zorbleflux": 80}
        assert project_words.in_project(conn, "/p4", ["zorbleflux"]) == {}


def test_a_projects_own_identifier_is_planned_by_its_count_in_the_project(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The project may rank 20 rows. Its 80 turns naming the identifier are 80 / 12 ≈ 7 by
    # the share: one statement would rank all 80 and call the result exact.
    monkeypatch.setattr(search, "WORK_BUDGET", 50)
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", 20)
    monkeypatch.setattr(search, "WINDOW_ROWS", 5)
    found = index.search("zorbleflux", project=OWN, k=5)
    assert len(found) == 5 and found.approximate
    assert all(hit.project == OWN for hit in found)


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
    assert index.engine is not None
    with index.engine.begin() as conn:
        project_words.refill(conn)
        assert project_words.in_project(conn, "/gone", ["zorbleflux"]) == {"zorbleflux": 20}
    index.forget_project("/gone")
    with index.engine.connect() as conn:
        assert project_words.in_project(conn, "/gone", ["zorbleflux"]) == {}
    index.close()

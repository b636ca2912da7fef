"""A search cut short says so: the library's result, the tool's text and the HTTP answer all
carry it, and a search that ranked every matching turn never claims it.

The work budget is scaled down so 80 turns take the path a million would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.store.postgres import search as postgres_search
from history.store.sqlite import fts_search
from history.tools.recall_history import APPROXIMATE, RecallHistoryTool
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

NOW = datetime.now(UTC)


@pytest.fixture
def filled(index: HistoryIndex, project: str) -> HistoryIndex:
    for n in range(80):
        index.record(
            turn_id=f"t{n:02d}",
            session_id=f"s{n // 10}",
            project=project,
            asked=f"step {n} of the migration" + (" zeppelin" if n == 3 else ""),
            answered="the parser and the cache " * (1 + n % 3),
            files=[f"src/mod{n % 7}.py"],
            asked_at=NOW - timedelta(hours=80 - n),
        )
    return index


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (fts_search, postgres_search):
        monkeypatch.setattr(module, "WORK_BUDGET", 20)
        monkeypatch.setattr(module, "WINDOW_ROWS", 20)


@pytest.mark.usefixtures("small_budget")
def test_a_search_cut_short_says_so_and_an_exhaustive_one_does_not(
    filled: HistoryIndex, project: str
) -> None:
    common = filled.search("step migration", k=5)  # both words in all 80 turns
    assert len(common) == 5 and common.approximate
    rare = filled.search("zeppelin", k=5)  # one turn: ranked whole
    assert [hit.turn_id for hit in rare] == ["t03"] and not rare.approximate
    assert not filled.search("the of", k=5).approximate  # nothing to search


def test_with_the_budget_to_rank_everything_nothing_is_approximate(filled: HistoryIndex) -> None:
    found = filled.search("step migration parser", k=5)
    assert len(found) == 5 and not found.approximate


@pytest.mark.usefixtures("small_budget")
def test_the_tool_tells_the_model_the_search_was_cut_short(
    filled: HistoryIndex, project: str
) -> None:
    tool = RecallHistoryTool(filled, project)
    assert APPROXIMATE in tool.run("step migration").splitlines()[0]
    assert APPROXIMATE not in tool.run("zeppelin")


@pytest.mark.usefixtures("small_budget")
def test_the_http_answer_carries_approximate(filled: HistoryIndex, project: str) -> None:
    with TestClient(create_app(filled), base_url=LOOPBACK) as client:
        common = client.get("/api/code/history", params={"q": "step migration"}).json()
        rare = client.get("/api/code/history", params={"q": "zeppelin"}).json()
        nothing = client.get("/api/code/history", params={"q": "the"}).json()
    assert common["approximate"] is True and len(common["hits"]) == 5
    assert rare["approximate"] is False and len(rare["hits"]) == 1
    assert nothing["approximate"] is False

"""`Hit.score` is one scale everywhere: from 0 to 1, the share of the most any turn could score
for the same words in the same index, whatever the index's size, on both search paths, and the
same number from the library, the HTTP service and `recall search --json`.

Raw bm25 was near 1e-6 on an index of a few turns (a word in half the turns or more weighs
1e-6 there) and tens on a large one: the same turn scored 3.6e-06 or 10.6.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.cli import main
from history.store.sqlite import fts
from tests.helpers.loopback import LOOPBACK

ASKED = "How should the login function hash passwords?"


def fill(index: HistoryIndex, others: int) -> None:
    index.record(turn_id="t", session_id="s", project="/p", asked=ASKED, answered="argon2id.")
    for n in range(others):
        index.record(
            turn_id=f"o{n}", session_id="s", project="/p", asked=f"cart total {n}", answered="ok"
        )


@pytest.fixture(params=["fts5", "like", "postgresql"])
def every_path(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HistoryIndex]:
    """An index on each search path: SQLite's FTS5, its LIKE fallback, PostgreSQL's tsvector."""
    if request.param == "postgresql":
        opened = HistoryIndex.open(request.getfixturevalue("postgres_url"))
    else:
        if request.param == "like":
            monkeypatch.setattr(fts, "fts5_available", lambda conn: False)
        opened = HistoryIndex.open(tmp_path / "history.db")
    yield opened
    opened.close()


@pytest.mark.parametrize("others", [0, 1, 49])
def test_a_score_is_a_share_whatever_the_size_of_the_index(
    every_path: HistoryIndex, others: int
) -> None:
    fill(every_path, others)
    [hit] = every_path.search("login function")
    assert 0.05 < hit.score < 1  # not 1e-6 on a small index, not tens on a larger one
    [weaker] = every_path.search("login function zeppelin")  # a word no turn holds
    assert weaker.score < hit.score


def test_a_turn_holding_more_of_the_words_scores_more(every_path: HistoryIndex) -> None:
    fill(every_path, 20)
    every_path.record(turn_id="half", session_id="s", project="/p", asked="login", answered="")
    scores = {hit.turn_id: hit.score for hit in every_path.search("login function passwords")}
    assert 0 < scores["half"] < scores["t"] <= 1


def test_the_library_the_service_and_the_terminal_show_one_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    index = HistoryIndex.open(home / "history.db")
    fill(index, 5)
    [hit] = index.search("login function")
    [served] = (
        TestClient(create_app(index), base_url=LOOPBACK)
        .get("/api/code/history?q=login+function")
        .json()["hits"]
    )
    index.close()
    assert main(["--home", str(home), "search", "login function", "--everywhere", "--json"]) == 0
    [printed] = json.loads(capsys.readouterr().out)
    assert served["score"] == printed["score"] == pytest.approx(hit.score, rel=1e-12)

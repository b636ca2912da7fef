"""`Hit.score` is one scale everywhere: from 0 to 1, the share of the most any turn could score
for the same words in the same index, whatever the index's size, on both search paths, and the
same number from the library, the HTTP service and `recall search --json`.

Raw bm25 was near 1e-6 on an index of a few turns (a word in half the turns or more weighs
1e-6 there) and tens on a large one: the same turn scored 3.6e-06 or 10.6.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.cli import main

ASKED = "How should the login function hash passwords?"


def fill(index: HistoryIndex, others: int) -> None:
    index.record(turn_id="t", session_id="s", project="/p", asked=ASKED, answered="argon2id.")
    for n in range(others):
        index.record(
            turn_id=f"o{n}", session_id="s", project="/p", asked=f"cart total {n}", answered="ok"
        )


@pytest.mark.parametrize("others", [0, 1, 49])
def test_a_score_is_a_share_whatever_the_size_of_the_index(
    any_index: HistoryIndex, others: int
) -> None:
    fill(any_index, others)
    [hit] = any_index.search("login hashing")
    assert 0.2 < hit.score < 1  # not 1e-6 on a small index, not tens on a larger one
    [weaker] = any_index.search("login hashing zeppelin")  # a word no turn holds
    assert weaker.score < hit.score


def test_a_turn_holding_more_of_the_words_scores_more(any_index: HistoryIndex) -> None:
    fill(any_index, 20)
    any_index.record(turn_id="half", session_id="s", project="/p", asked="login", answered="")
    scores = {hit.turn_id: hit.score for hit in any_index.search("login function passwords")}
    assert 0 < scores["half"] < scores["t"] <= 1


def test_the_library_the_service_and_the_terminal_show_one_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    index = HistoryIndex.open(home / "history.db")
    fill(index, 5)
    [hit] = index.search("login hashing")
    [served] = TestClient(create_app(index)).get("/api/code/history?q=login+hashing").json()["hits"]
    index.close()
    assert main(["--home", str(home), "search", "login hashing", "--everywhere", "--json"]) == 0
    [printed] = json.loads(capsys.readouterr().out)
    assert served["score"] == printed["score"] == pytest.approx(hit.score, rel=1e-12)

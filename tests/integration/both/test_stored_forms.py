"""A read names a project by its path and finds it however it was stored: as given (nearly
always, read without loading the redaction rules) or masked, because the path held a secret.
On both backends, whose SQL tells the two apart."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from history import HistoryIndex
from tests.helpers.secret_corpus import fake

PASSWORD = "Hu" + fake("stored-forms", 10)
SECRET_PROJECT = f"https://ci:{PASSWORD}@git.example.com/shop"


@pytest.fixture(params=["sqlite", "postgres"])
def index(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HistoryIndex]:
    if request.param == "postgres":
        target = request.getfixturevalue("postgres_url")
    else:
        target = str(tmp_path_factory.mktemp("stored-forms") / "history.db")
    opened = HistoryIndex.open(target)
    yield opened
    opened.close()


def record(index: HistoryIndex, turn_id: str, project: str) -> None:
    assert index.record(
        turn_id=turn_id, session_id=turn_id, project=project, asked="deploy step", answered="ok"
    )


def test_a_plain_project_and_one_that_held_a_secret_are_each_found_by_their_path(
    index: HistoryIndex,
) -> None:
    record(index, "plain", "/work/shop")
    assert index.count("/work/shop") == 1
    assert index.count("/work/elsewhere") == 0  # nothing stored masked: not masked either
    record(index, "secret", SECRET_PROJECT)
    stored = [project.project for project in index.projects()]
    assert len(stored) == 2 and not any(PASSWORD in project for project in stored)
    assert [hit.turn_id for hit in index.search("deploy", project=SECRET_PROJECT)] == ["secret"]
    assert index.count(SECRET_PROJECT) == 1 and index.session_ids(SECRET_PROJECT) == ["secret"]
    assert [c.session_id for c in index.conversations(SECRET_PROJECT)] == ["secret"]
    assert [hit.turn_id for hit in index.search("deploy", project="/work/shop")] == ["plain"]
    assert index.count("/work/elsewhere") == 0

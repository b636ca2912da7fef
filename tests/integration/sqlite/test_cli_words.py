"""`recall search` and `recall forget` speak to the person at the terminal: their own options in
every hint, never the tool's arguments for a model, and only true sentences after a forget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from history import HistoryIndex
from history.cli import main

# What the recall_history tool says to a model, and a person must never read.
MODEL_WORDS = ("everywhere=true", "raise k", "without days", "call again", "Answer from this")
NOW = datetime.now(UTC)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    index = HistoryIndex.open(home / "history.db")
    for turn_id, session, project, asked, age in [
        ("t1", "conv-1", "/work/shop", "How should the login function hash passwords?", 30),
        ("t2", "conv-2", "/work/shop", "Add a test for the cart total", 2),
        ("t3", "conv-3", "/work/blog", "Login page for the blog admin", 1),
    ]:
        index.record(
            turn_id=turn_id,
            session_id=session,
            project=project,
            asked=asked,
            answered="done",
            asked_at=NOW - timedelta(days=age),
        )
    index.close()
    return home


def recall(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["--home", str(home), *args])
    out, err = capsys.readouterr()
    said = out + err
    for words in MODEL_WORDS:
        assert words not in said, said
    return code, said


def test_search_hints_name_the_commands_options(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shop = ("--project", "/work/shop")
    code, said = recall(home, capsys, "search", "kubernetes", *shop)
    assert code == 1
    assert said.startswith('None of the 2 turns in /work/shop matches "kubernetes".')
    assert "--everywhere" in said

    code, said = recall(home, capsys, "search", "login", "--days", "7", *shop)
    assert code == 1 and "search again without --days" in said

    code, said = recall(home, capsys, "search", "login", "-k", "1", "--everywhere")
    assert code == 0
    # Two turns match and one is shown: never "1 turn matches".
    assert said.startswith('The best turn of those that match "login" in every project.')
    assert "More match: -k 10 shows up to 10." in said

    code, said = recall(home, capsys, "search", "login", "--project", "/work/nowhere")
    assert code == 1
    assert said.startswith("No turn of /work/nowhere is in the history:")
    assert "--everywhere searches every project" in said


def test_after_a_forget_search_and_forget_say_what_is_true(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert recall(home, capsys, "forget", "--project", "/work/shop", "--yes")[0] == 0

    code, said = recall(home, capsys, "search", "login", "--project", "/work/shop")
    assert code == 1 and "none was recorded there, or they were forgotten" in said
    assert "yet" not in said and "has been saved" not in said

    code, said = recall(home, capsys, "forget", "--session", "conv-1", "--yes")
    assert (code, said) == (1, "conversation conv-1 was already forgotten\n")
    code, said = recall(home, capsys, "forget", "--session", "conv-never", "--yes")
    assert (code, said) == (1, "nothing is recorded for conversation conv-never\n")
    code, said = recall(home, capsys, "forget", "--project", "/work/shop")  # asks nothing
    assert (code, said) == (1, "nothing is recorded for /work/shop (or it was already forgotten)\n")


def test_an_empty_history_says_how_to_fill_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = recall(tmp_path / "empty", capsys, "search", "login", "--everywhere")
    assert code == 1 and said.startswith("The history is empty")
    assert "recall import auto" in said

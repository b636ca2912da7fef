"""Queries as people type them: bare words with options anywhere among them, a query on stdin
(`recall search -`), and a query longer than the search takes saying which words it searched
(CLI, recall_history, HTTP)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.cli import main
from history.limits import MAX_QUERY_CHARS
from history.query import MAX_QUERY_WORDS
from history.tools.recall_history import RecallHistoryTool
from tests.helpers.templates import new_index

PROJECT = "/work/shop"
# More distinct words than the search takes: the last one is the only one that matches.
LONG = " ".join(f"filler{n}" for n in range(MAX_QUERY_WORDS)) + " compaction threshold"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    index = new_index(home / "history.db")
    for turn_id, asked in [
        ("t1", "How should the login function do its password hashing?"),
        ("t2", "Lower the compaction threshold of the context"),
        ("t3", "Login page for the admin"),
        ("t4", "filler0 filler1 notes"),
    ]:
        index.record(turn_id=turn_id, session_id="c1", project=PROJECT, asked=asked, answered="ok")
    index.close()
    return home


def recall(
    home: Path, capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None
) -> tuple[int, str, str]:
    if stdin is not None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("sys.stdin", io.StringIO(stdin))
            code = main(["--home", str(home), *args])
    else:
        code = main(["--home", str(home), *args])
    out, err = capsys.readouterr()
    return code, out, err


def shown_ids(out: str) -> list[str]:
    return [
        line.split(" · turn ")[1].split(" · ")[0] for line in out.splitlines() if "· turn " in line
    ]


def test_bare_words_are_the_query_with_options_before_between_or_after_them(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ("search", "compaction", "threshold", "--project", PROJECT),
        ("search", "--project", PROJECT, "compaction", "threshold"),
        ("search", "compaction", "--project", PROJECT, "-k", "3", "threshold"),
    ):
        code, out, err = recall(home, capsys, *args)
        assert (code, err) == (0, ""), args
        assert out.startswith('1 turn matches "compaction threshold" in /work/shop, best first.')
        assert shown_ids(out) == ["t2"]

    code, out, _ = recall(
        home, capsys, "search", "login", "--json", "hashing", "--project", PROJECT
    )
    assert code == 0 and json.loads(out)[0]["turn_id"] == "t1"


def test_a_query_on_stdin_is_searched_and_an_empty_or_too_long_one_is_a_usage_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = "What did we set the\ncompaction threshold to?\n"
    code, out, _ = recall(home, capsys, "search", "-", "--project", PROJECT, stdin=asked)
    assert code == 0 and shown_ids(out) == ["t2"]

    code, out, err = recall(home, capsys, "search", "-", "--project", PROJECT, stdin=" \n\t")
    assert (code, out) == (2, "")
    assert err == "recall search: stdin held no query (with -, the query is read from it)\n"

    too_long = "threshold " * (MAX_QUERY_CHARS // 10 + 1)
    code, out, err = recall(home, capsys, "search", "-", "--project", PROJECT, stdin=too_long)
    assert (code, out) == (2, "")
    assert err == (
        "recall search: the query on stdin is longer than 10,000 characters; give its most "
        "telling words instead\n"
    )
    code, out, _ = recall(
        home, capsys, "search", "-", "--everywhere", stdin="threshold " * 999 + "x"
    )
    assert code == 0  # 9,991 characters: within the bound


def test_a_query_past_the_word_limit_says_which_words_were_searched(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = " ".join(f"filler{n}" for n in range(MAX_QUERY_WORDS))
    note = f"Only the first 32 words were searched ({kept}); 2 more were left out."
    code, out, _ = recall(home, capsys, "search", "-", "--project", PROJECT, stdin=LONG)
    assert code == 0 and note in out.split("\n\n")[0]
    assert shown_ids(out) == ["t4"]  # not t2: its words were left out

    code, out, err = recall(home, capsys, "search", "-", "--json", "--project", PROJECT, stdin=LONG)
    assert code == 0 and json.loads(out)[0]["turn_id"] == "t4"
    assert err == (
        f"recall search: only the first 32 words were searched ({kept}); 2 more were left out\n"
    )

    code, out, err = recall(home, capsys, "search", "compaction", "--json", "--project", PROJECT)
    assert code == 0 and err == ""  # a short query says nothing of it

    index = HistoryIndex.open(home / "history.db")
    try:
        header = RecallHistoryTool(index, PROJECT).run(LONG).split("\n\n")[0]
        assert note in header
        assert "left out" not in RecallHistoryTool(index, PROJECT).run("compaction threshold")
        with TestClient(create_app(index)) as client:
            found = client.get("/api/code/history", params={"q": LONG}).json()
            assert found["terms"] == kept.split() and found["words_dropped"] == 2
            short = client.get("/api/code/history", params={"q": "threshold"}).json()
            assert short["words_dropped"] == 0
    finally:
        index.close()

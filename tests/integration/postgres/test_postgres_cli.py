"""`recall` on a PostgreSQL database: `--database-url` or `$RECALL_DATABASE_URL`, the same
commands, the same exit codes; without either, nothing changes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from history import HistoryIndex, history_for
from history.cli import main
from tests.helpers.engines import engine_of


@pytest.fixture
def url(postgres_url: str) -> Iterator[str]:
    index = HistoryIndex.open(postgres_url)
    for turn_id, session, project, asked in [
        ("t1", "conv-1", "/work/shop", "How should the login function hash passwords?"),
        ("t2", "conv-1", "/work/shop", "Add a test for the cart total"),
        ("t3", "conv-2", "/work/blog", "Login page for the blog admin"),
    ]:
        index.record(turn_id=turn_id, session_id=session, project=project, asked=asked, answered="")
    index.close()
    yield postgres_url
    history_for(None, postgres_url).close()


def test_search_stats_forget_and_doctor_with_database_url(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--database-url", url, "search", "login", "--everywhere", "--json"]) == 0
    assert {hit["turn_id"] for hit in json.loads(capsys.readouterr().out)} == {"t1", "t3"}
    assert main(["stats", "--json", "--database-url", url]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["turns"] == 3 and stats["full_text"] and stats["database_bytes"] > 0
    assert main(["--database-url", url, "forget", "--session", "conv-2", "--yes"]) == 0
    assert capsys.readouterr().out == "forgot 1 turn: conversation conv-2\n"
    assert main(["--database-url", url, "search", "login", "--everywhere", "--json"]) == 0
    assert [hit["turn_id"] for hit in json.loads(capsys.readouterr().out)] == ["t1"]
    assert main(["--database-url", url, "doctor"]) == 0
    assert "Every index of the turns table is present and valid." in capsys.readouterr().out


def test_the_environment_names_the_database_and_the_home_file_is_untouched(
    url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RECALL_DATABASE_URL", url)
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "home"))
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^turns: +3 in 2 conversations$", out, re.M)
    assert "PostgreSQL tsvector full text" in out and url.split("@")[1] in out
    assert main(["migrate"]) == 0
    assert "is at the latest schema (PostgreSQL tsvector full text)" in capsys.readouterr().out
    assert not (tmp_path / "home" / "history.db").exists()


def test_without_a_url_the_home_file_is_the_index(
    url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RECALL_DATABASE_URL", raising=False)
    assert main(["--home", str(tmp_path / "home"), "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 0
    assert (tmp_path / "home" / "history.db").exists()


def test_doctor_rebuilds_a_missing_full_text_index(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    index = history_for(None, url)
    with engine_of(index).begin() as conn:
        conn.exec_driver_sql("DROP INDEX ix_turns_search_vector")
    assert main(["--database-url", url, "doctor", "--check-only"]) == 1
    assert "ix_turns_search_vector" in capsys.readouterr().out
    assert main(["--database-url", url, "doctor"]) == 0
    assert "Rebuilt the indexes that were invalid or missing" in capsys.readouterr().out
    assert main(["--database-url", url, "search", "login", "--everywhere", "--json"]) == 0

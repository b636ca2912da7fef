"""Small truths a person reads: a new database says it was created, an empty project's list
says how to see every project's."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from history import HistoryIndex
from history.cli import main
from tests.helpers import postgres

_numbers = itertools.count()


def recall(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


def test_migrate_says_it_created_a_new_file_and_where_then_that_it_is_at_the_latest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    code, said = recall(capsys, "--home", str(home), "migrate")
    assert code == 0
    assert said == (
        f"created a new history database at {home / 'history.db'}, at the latest schema "
        "(FTS5 full text)\n"
    )
    code, said = recall(capsys, "--home", str(home), "migrate")
    assert (code, said) == (0, f"{home / 'history.db'} is at the latest schema (FTS5 full text)\n")


def test_migrate_says_it_created_the_schema_of_a_postgresql_database_never_migrated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    postgres.require_server()
    name = f"{postgres.PREFIX}_empty_{next(_numbers)}"
    postgres._execute(f"CREATE DATABASE {name}")
    url = postgres.url_of(name)
    try:
        code, said = recall(capsys, "--database-url", url, "migrate")
        assert code == 0 and said.startswith("created a new history database at postgresql")
        assert said.endswith(", at the latest schema (PostgreSQL tsvector full text)\n")
        code, said = recall(capsys, "--database-url", url, "migrate")
        assert code == 0 and said.endswith(
            " is at the latest schema (PostgreSQL tsvector full text)\n"
        )
        assert not said.startswith("created")
    finally:
        from history.index import _indexes

        for key in [key for key in _indexes if isinstance(key, str) and name in key]:
            _indexes.pop(key).close()
        postgres.drop(name)


def test_sessions_in_a_project_without_turns_name_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    index = HistoryIndex.open(home / "history.db")
    index.record(turn_id="t1", session_id="c1", project="/work/blog", asked="a", answered="b")
    index.close()
    code, said = recall(capsys, "--home", str(home), "sessions", "--project", "/work/shop")
    assert code == 1
    assert said == (
        "No conversation in this project (/work/shop); --everywhere lists those of every project.\n"
    )
    code, said = recall(
        capsys, "--home", str(home), "sessions", "--project", "/work/shop", "--days", "3"
    )
    assert code == 1 and said.endswith("--everywhere lists those of every project.\n")
    code, said = recall(capsys, "--home", str(home), "sessions", "--everywhere")
    assert code == 0 and "c1" in said

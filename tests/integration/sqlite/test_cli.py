"""The `recall` command: search, forget, stats, migrate, and its exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from history import HistoryIndex
from history.cli import main
from tests.helpers.engines import engine_of
from tests.helpers.templates import new_index

RECALL = Path(sys.executable).parent / "recall"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    index = new_index(home / "history.db")
    now = datetime.now(UTC)
    for turn_id, session, project, asked, age in [
        ("t1", "conv-1", "/work/shop", "How should the login function hash passwords?", 3),
        ("t2", "conv-1", "/work/shop", "Add a test for the cart total", 2),
        ("t3", "conv-2", "/work/blog", "Login page for the blog admin", 40),
    ]:
        index.record(
            turn_id=turn_id,
            session_id=session,
            project=project,
            asked=asked,
            answered="done",
            files=["src/login.py"],
            edited=["src/login.py"],
            asked_at=now - timedelta(days=age),
        )
    index.close()
    return home


def run(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RECALL_HOME": str(home)}
    return subprocess.run(
        [str(RECALL), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_search_through_the_entry_point_prints_the_tools_answer(home: Path) -> None:
    found = run(home, "search", "login", "--project", "/work/shop")
    assert found.returncode == 0, found.stderr
    assert "conversation conv-1" in found.stdout and "edited: src/login.py" in found.stdout
    assert "Login page for the blog" not in found.stdout

    nothing = run(home, "search", "kubernetes", "--project", "/work/shop")
    assert nothing.returncode == 1 and "None of the 2 turns" in nothing.stdout

    usage = run(home, "search", "the of and", "--project", "/work/shop")
    assert usage.returncode == 2 and usage.stderr.startswith("error: ")
    assert run(home, "search", "login", "-k", "11").returncode == 2


def test_search_defaults_to_the_current_directorys_project(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run(home, "search", "login", cwd=elsewhere).returncode == 1
    everywhere = run(home, "search", "login", "--everywhere", cwd=elsewhere)
    assert everywhere.returncode == 0 and "project: /work/blog" in everywhere.stdout


def test_search_json_and_days(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--home", str(home), "search", "login", "--everywhere", "--days", "7", "--json"])
    hits = json.loads(capsys.readouterr().out)
    assert code == 0 and [hit["turn_id"] for hit in hits] == ["t1", "t2"]  # t2 by its file
    assert datetime.fromisoformat(hits[0]["asked_at"]).tzinfo is not None
    assert hits[0]["edited"] == ["src/login.py"]


def test_forget_session_needs_yes_without_a_terminal(home: Path) -> None:
    refused = run(home, "forget", "--session", "conv-1")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    done = run(home, "forget", "--session", "conv-1", "--yes")
    assert done.returncode == 0 and "forgot 2 turns" in done.stdout
    assert run(home, "search", "login", "--project", "/work/shop").returncode == 1
    assert run(home, "forget", "--session", "conv-1", "--yes").returncode == 1


def test_forget_project_keeps_other_projects(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--home", str(home), "forget", "--project", "/work/shop/", "--yes"]) == 0
    assert "1 conversation, 2 turns" in capsys.readouterr().out
    assert main(["--home", str(home), "search", "login", "--everywhere", "--json"]) == 0
    assert [hit["turn_id"] for hit in json.loads(capsys.readouterr().out)] == ["t3"]


def test_stats(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "stats"]) == 0
    out = capsys.readouterr().out
    assert "3 in 2 conversations" in out and "FTS5" in out
    assert "2  /work/shop" in out and "1  /work/blog" in out
    assert main(["--home", str(home), "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["turns"] == 3 and stats["per_project"] == {"/work/shop": 2, "/work/blog": 1}
    assert stats["database_bytes"] > 0 and stats["full_text"] is True


def test_migrate_creates_the_database_and_prints_sql_on_request(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    done = run(fresh, "migrate")
    assert done.returncode == 0 and (fresh / "history.db").exists()
    sql = run(tmp_path / "unused", "migrate", "--sql")
    assert sql.returncode == 0
    assert (
        "CREATE VIRTUAL TABLE turns_fts" in sql.stdout and "CREATE TRIGGER turns_au" in sql.stdout
    )
    assert not (tmp_path / "unused" / "history.db").exists()


def test_usage_errors_exit_2(home: Path) -> None:
    assert run(home, "search").returncode == 2
    assert run(home, "frobnicate").returncode == 2
    assert run(home, "forget", "--session", "a", "--project", "/p").returncode == 2
    assert run(home, "search", "x", "--days", "0").returncode == 2
    helped = run(home, "--help")
    assert helped.returncode == 0 and "Exit codes" in helped.stdout


def test_doctor_rebuilds_an_index_that_disagrees_with_the_table(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqlalchemy import text

    index = HistoryIndex.open(home / "history.db")
    with engine_of(index).begin() as conn:  # a row changed behind the triggers' back
        conn.execute(text("DROP TRIGGER turns_au"))
        conn.execute(text("UPDATE turns SET asked = 'kubernetes rollout' WHERE turn_id = 't1'"))
    index.close()
    assert main(["--home", str(home), "doctor", "--check-only"]) == 1
    assert "turns_au" in capsys.readouterr().out
    assert main(["--home", str(home), "doctor"]) == 0
    out = capsys.readouterr().out
    assert "sound" in out and "Recreated the missing triggers: turns_au" in out
    assert "rebuilt and now agrees" in out
    assert main(["--home", str(home), "doctor", "--check-only"]) == 0
    assert main(["--home", str(home), "search", "kubernetes", "--everywhere", "--json"]) == 0


def test_doctor_merges_what_short_lived_writers_left(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from history import index as index_module
    from history import upkeep

    monkeypatch.setattr(upkeep, "QUIET_SECONDS", 3600.0)
    monkeypatch.setattr(index_module, "CLOSING_UPKEEP_SECONDS", 0.0)
    index = HistoryIndex.open(home / "history.db")
    for n in range(30):
        index.record(turn_id=f"m{n}", session_id="m", project="/p", asked="merge me", answered="")
    index.close()
    assert main(["--home", str(home), "doctor"]) == 0
    out = capsys.readouterr().out
    assert "Merged the full-text index from" in out
    assert main(["--home", str(home), "doctor"]) == 0
    assert "nothing to merge" in capsys.readouterr().out

"""`recall retain`: forget past an age now, or keep a setting the upkeep applies; `recall stats`
shows the policy."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from history.cli import main
from tests.helpers.cli_runs import recall
from tests.helpers.templates import new_index


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    index = new_index(home / "history.db")
    now = datetime.now(UTC)
    for turn_id, project, age in [
        ("shop-new", "/work/shop", 3),
        ("shop-old", "/work/shop", 120),
        ("blog-new", "/work/blog", 5),
        ("blog-old", "/work/blog", 200),
    ]:
        index.record(
            turn_id=turn_id,
            session_id=f"conv-{turn_id}",
            project=project,
            asked=f"How does the login of {turn_id} work?",
            answered="done",
            asked_at=now - timedelta(days=age),
        )
    index.close()
    return home


def found(home: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    _, out, _ = recall(capsys, "--home", str(home), "search", "login", "--everywhere", "--json")
    return sorted(hit["turn_id"] for hit in json.loads(out))


def test_older_than_forgets_past_the_age_by_project_and_everywhere(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(
        capsys,
        "--home",
        str(home),
        "retain",
        "--older-than",
        "90d",
        "--project",
        "/work/shop/",
        "--yes",
    )
    assert code == 0 and "forgot 1 turn of /work/shop asked more than 90 days ago" in out
    assert found(home, capsys) == ["blog-new", "blog-old", "shop-new"]
    code, out, _ = recall(capsys, "--home", str(home), "retain", "--older-than", "26w", "--yes")
    assert code == 0 and "forgot 1 turn of every project asked more than 182 days ago" in out
    assert found(home, capsys) == ["blog-new", "shop-new"]
    code, out, _ = recall(capsys, "--home", str(home), "retain", "--older-than", "1y", "--yes")
    assert code == 1 and "no turn of every project was asked more than 365 days ago" in out


def test_older_than_asks_first_and_needs_yes_without_a_terminal(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = recall(capsys, "--home", str(home), "retain", "--older-than", "90d")
    assert code == 2 and "pass --yes" in err
    assert len(found(home, capsys)) == 4


def test_set_show_unset_and_stats(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = recall(capsys, "--home", str(home), "retain", "--show")
    assert code == 0 and "no retention is set" in out
    code, out, _ = recall(capsys, "--home", str(home), "retain", "--set", "180d")
    assert code == 0 and "turns of every project are kept 180 days" in out
    assert (
        recall(capsys, "--home", str(home), "retain", "--set", "30", "--project", "/work/blog")[0]
        == 0
    )
    # Past retention is out of search at once, before any upkeep erased it.
    assert found(home, capsys) == ["blog-new", "shop-new", "shop-old"]
    code, out, _ = recall(capsys, "--home", str(home), "retain", "--show")
    assert out.splitlines() == ["every project: 180 days", "/work/blog: 30 days"]
    code, out, _ = recall(capsys, "--home", str(home), "stats")
    assert "every project: 180 days; /work/blog: 30 days" in out
    assert "3 in 3 conversations" in out
    stats = json.loads(recall(capsys, "--home", str(home), "stats", "--json")[1])
    assert stats["retention"] == {"*": 180, "/work/blog": 30} and stats["turns"] == 3
    code, out, _ = recall(
        capsys, "--home", str(home), "retain", "--unset", "--project", "/work/blog"
    )
    assert code == 0 and "retention for /work/blog removed" in out
    code, _, err = recall(
        capsys, "--home", str(home), "retain", "--unset", "--project", "/work/blog"
    )
    assert code == 1 and "no retention was set for /work/blog" in err


def test_a_bad_age_is_a_usage_error(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("soon", "0d", "90m"):
        code, _, err = recall(capsys, "--home", str(home), "retain", "--set", bad)
        assert code == 2 and "is not an age such as 90d, 12w or 1y" in err
    code, _, err = recall(capsys, "--home", str(home), "retain")
    assert code == 2
    assert main(["--home", str(home), "retain", "--show"]) == 0

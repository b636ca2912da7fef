"""`recall show`, `recall sessions`, `recall projects`: what a person sees, and the exit codes."""

from __future__ import annotations

import json
import os
import pty
import shlex
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from history.cli import main
from tests.helpers.cli_runs import recall as run_recall
from tests.helpers.templates import new_index

RECALL = Path(sys.executable).parent / "recall"
NOW = datetime.now(UTC).replace(microsecond=0)
KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    index = new_index(home / "history.db")
    for n in range(4):
        index.record(
            turn_id=f"t{n}",
            session_id="conv-1",
            project="/work/shop",
            asked=f"Step {n}: how should the login function hash passwords?",
            answered=f"Answer {n}: argon2id, with {KEY} kept out.\nSecond line.",
            files=["README.md"],
            edited=["src/login.py"],
            tainted=n == 2,
            asked_at=NOW - timedelta(hours=10 - n),
        )
    for n in range(5):
        index.record(
            turn_id=f"b{n}",
            session_id=f"blog-{n}",
            project="/work/blog",
            asked=f"Blog question {n}",
            answered="ok",
            asked_at=NOW - timedelta(days=n + 1),
        )
    index.close()
    return home


def recall(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    return run_recall(capsys, "--home", str(home), *args)


def test_show_prints_the_whole_turn_as_stored(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(home, capsys, "show", "t1")
    assert code == 0
    assert out.splitlines()[0].startswith("turn t1 · ") and "conversation conv-1" in out
    assert "project: /work/shop" in out and "edited: src/login.py" in out
    assert out.endswith(
        "asked:\nStep 1: how should the login function hash passwords?\nanswered:\n"
        "Answer 1: argon2id, with [redacted:github-token] kept out.\nSecond line.\n"
    )
    assert KEY not in out

    code, out, _ = recall(home, capsys, "show", "t2", "--json")
    shown = json.loads(out)
    assert (code, shown["turn_id"], shown["tainted"], shown["edited"]) == (
        0,
        "t2",
        True,
        ["src/login.py"],
    )
    assert datetime.fromisoformat(shown["asked_at"]) == NOW - timedelta(hours=8)


def test_show_a_conversation_in_order_and_around_its_ends(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(home, capsys, "show", "--session", "conv-1")
    assert code == 0 and out.startswith("Conversation conv-1: 4 turns, oldest first.")
    assert [line.split(" · ")[0] for line in out.splitlines() if " · " in line] == [
        "[1/4] turn t0",
        "[2/4] turn t1",
        "[3/4] turn t2",
        "[4/4] turn t3",
    ]
    assert out.count("[this turn read untrusted content") == 1

    _, first, _ = recall(home, capsys, "show", "--session", "conv-1", "--around", "t0")
    assert "with 0 turns before it and 2 turns after" in first
    _, last, _ = recall(home, capsys, "show", "--session", "conv-1", "--around", "t3")
    assert "with 2 turns before it and 0 turns after" in last
    _, near, _ = recall(
        home, capsys, "show", "--session", "conv-1", "--around", "t2", "--radius", "1", "--json"
    )
    assert [turn["turn_id"] for turn in json.loads(near)] == ["t1", "t2", "t3"]


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["show", "nowhere"], 1, "no turn has the id 'nowhere'"),
        (["show", "--session", "nowhere"], 1, "no conversation has the id 'nowhere'"),
        (["show", "--session", "conv-1", "--around", "b1"], 1, "holds no turn 'b1'"),
        (["show"], 2, "give a TURN_ID or --session ID"),
        (["show", "t1", "--session", "conv-1"], 2, "not both"),
        (["show", "t1", "--around", "t2"], 2, "--around goes with --session"),
        (["sessions", "--before", "not-a-cursor"], 2, "before must be a cursor"),
    ],
)
def test_nothing_is_1_and_bad_use_is_2_with_a_sentence(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, said: str
) -> None:
    exit_code, out, err = recall(home, capsys, *args)
    assert (exit_code, out) == (code, "") and said in err and "Traceback" not in err


def test_argument_errors_exit_2(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["sessions", "--project", "/a", "--everywhere"], ["sessions", "-n", "0"]):
        with pytest.raises(SystemExit) as exited:
            main(["--home", str(home), *args])
        assert exited.value.code == 2


def test_sessions_list_a_page_and_say_how_to_get_the_next(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(home, capsys, "sessions", "--project", "/work/blog", "-n", "2")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Conversations in this project (/work/blog), the latest first:"
    assert [line.split()[2] for line in lines[1:-1] if not line.startswith(" ")] == [
        "blog-0",
        "blog-1",
    ]
    more = shlex.split(lines[-1].removeprefix("More: "))
    assert more[:6] == ["recall", "sessions", "--project", "/work/blog", "-n", "2"]

    seen = []
    while more:
        code, out, _ = recall(home, capsys, *more[1:])
        seen += [line.split()[2] for line in out.splitlines()[1:] if line[:2] == "20"]
        last = out.splitlines()[-1]
        more = shlex.split(last.removeprefix("More: ")) if last.startswith("More: ") else []
    assert seen == ["blog-2", "blog-3", "blog-4"]

    code, out, _ = recall(home, capsys, "sessions", "--everywhere", "--json")
    listed = json.loads(out)
    assert [c["session_id"] for c in listed] == ["conv-1", *(f"blog-{n}" for n in range(5))]
    assert listed[0]["turns"] == 4 and listed[0]["tainted_turns"] == 1 and listed[0]["cursor"]
    assert listed[0]["edited"] == ["src/login.py"]
    code, out, _ = recall(home, capsys, "sessions", "--everywhere", "--days", "2")
    assert "conv-1" in out and "blog-0" in out and "blog-1" not in out


def test_projects_list_and_an_empty_index_is_1(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(home, capsys, "projects")
    rows = [line.split() for line in out.splitlines()[1:]]
    assert code == 0 and [(r[0], r[1], r[-1]) for r in rows] == [
        ("4", "1", "/work/shop"),
        ("5", "5", "/work/blog"),
    ]
    code, out, _ = recall(home, capsys, "projects", "--json")
    assert [p["project"] for p in json.loads(out)] == ["/work/shop", "/work/blog"]

    empty = tmp_path / "empty"
    told = "No project holds a turn: none was recorded, or all were forgotten.\n"
    assert recall(empty, capsys, "projects") == (1, told, "")
    assert recall(empty, capsys, "sessions", "--everywhere", "--json") == (1, "[]\n", "")


def test_a_forgotten_conversation_is_gone_from_the_lists(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert recall(home, capsys, "forget", "--session", "conv-1", "--yes")[0] == 0
    assert recall(home, capsys, "show", "t1")[0] == 1
    assert recall(home, capsys, "sessions", "--project", "/work/shop")[0] == 1
    listed = json.loads(recall(home, capsys, "projects", "--json")[1])
    assert [p["project"] for p in listed] == ["/work/blog"]


def test_projects_after_forgetting_everything_does_not_claim_nothing_was_recorded(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for project in ("/work/shop", "/work/blog"):
        assert recall(home, capsys, "forget", "--project", project, "--yes")[0] == 0
    code, out, _ = recall(home, capsys, "projects")
    assert code == 1 and "or all were forgotten" in out and "Nothing recorded" not in out


def test_show_on_a_terminal_goes_through_the_pager(home: Path, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    env = {**os.environ, "RECALL_HOME": str(home), "PAGER": f"cat > {paged}", "TERM": "xterm"}
    env.pop("MANPAGER", None)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(RECALL), "show", "--session", "conv-1"],
            stdin=follower,
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stderr
    text = paged.read_text()
    assert text.startswith("Conversation conv-1: 4 turns") and "Answer 3: argon2id" in text

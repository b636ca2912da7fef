"""The recall_turn tool: a turn in full, the turns around it, in bounded parts, on a real index."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from history import HistoryIndex, project_key
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import PART_CHARS, RecallTurnTool
from history.tools.text import TAINT_LINE

pytestmark = pytest.mark.both_backends

NOW = datetime.now(UTC)
KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
MORE = re.compile(r"\n\[\+(\d+) characters: call again with offset=(\d+)\]$")


@pytest.fixture
def tool(index: HistoryIndex, project: str) -> RecallTurnTool:
    return RecallTurnTool(index, project)


def record(index: HistoryIndex, turn_id: str, project: str, **extra: Any) -> None:
    extra.setdefault("session_id", "conv-1")
    extra.setdefault("asked", f"asked in {turn_id}")
    extra.setdefault("answered", f"answered in {turn_id}")
    extra.setdefault("asked_at", NOW - timedelta(hours=1))
    assert index.record(turn_id=turn_id, project=project, **extra)


def test_a_turn_in_full_dated_in_local_time_with_its_files_told_apart(
    index: HistoryIndex, tool: RecallTurnTool, project: str, local_tz: None
) -> None:
    asked_at = (NOW - timedelta(days=3)).replace(hour=8, minute=0, second=0, microsecond=0)
    answered = "We decided the login function refreshes the token first.\n\n" + "detail " * 300
    record(
        index,
        "t1",
        project,
        asked=f"Why does login reject {KEY}?",
        answered=answered,
        asked_at=asked_at,
        files=["README.md"],
        edited=[f"{project}/src/auth.py"],
        tools=["read_file", "edit_file"],
    )

    out = tool.run("t1")

    local = asked_at.astimezone()
    age = (datetime.now().astimezone().date() - local.date()).days
    lines = out.splitlines()
    assert lines[0] == f"turn t1 · {local:%Y-%m-%d} 13:30 ({age} days ago) · conversation conv-1"
    assert lines[1:5] == [
        "edited: src/auth.py",
        "read: README.md",
        "tools: read_file, edit_file",
        "asked:",
    ]
    stored = index.turn("t1")
    assert stored is not None and KEY not in out
    assert out.endswith(f"asked:\n{stored.asked}\nanswered:\n{answered}")
    assert TAINT_LINE not in out and "project:" not in out


def test_the_turns_around_it_each_with_its_taint_label_and_the_asked_one_marked(
    index: HistoryIndex, tool: RecallTurnTool, project: str, tmp_path: Path
) -> None:
    for n in range(6):
        record(index, f"t{n}", project, tainted=n in (1, 4), asked_at=NOW - timedelta(hours=9 - n))

    first = tool.run("t0", radius=2)
    assert first.splitlines()[0] == (
        "Turn t0 of conversation conv-1, with 0 turns before it and 2 turns after, oldest first."
    )
    blocks = first.split("\n\n")[1:]
    assert [b.split(" · ")[0] for b in blocks] == [
        "[1/3] turn t0",
        "[2/3] turn t1",
        "[3/3] turn t2",
    ]
    assert blocks[0].splitlines()[0].endswith("← this one") and "← this one" not in blocks[1]
    assert [TAINT_LINE in b for b in blocks] == [False, True, False]

    last = tool.run("t5", radius=5)
    assert [b.split(" · ")[0].split()[-1] for b in last.split("\n\n")[1:]] == [
        f"t{n}" for n in range(6)
    ]
    assert last.count(TAINT_LINE) == 2

    other = str(tmp_path / "other")
    record(index, "far", other, session_id="conv-far")
    assert f"project: {project_key(other)}" in tool.run("far").splitlines()


def test_a_200_kb_answer_comes_in_bounded_parts_that_add_up_to_it(
    index: HistoryIndex, tool: RecallTurnTool, project: str
) -> None:
    for n in range(4):
        words = " ".join(f"w{n}-{i}" for i in range(4_000))  # ~30 KB
        asked_at = NOW - timedelta(hours=5 - n)
        record(index, f"big{n}", project, asked=words, answered=words * 2, asked_at=asked_at)

    parts: list[str] = []
    footers: list[tuple[int, int]] = []  # (characters left, the offset to call with)
    offset = 0
    while True:
        out = tool.call({"turn_id": "big1", "radius": 2, "offset": offset})
        assert len(out) <= PART_CHARS + 80 and not out.startswith("error")
        more = MORE.search(out)
        parts.append(out[: more.start()] if more else out)
        if not more:
            break
        footers.append((int(more.group(1)), int(more.group(2))))
        offset = footers[-1][1]

    text = "".join(parts)
    assert len(text) > 200_000
    assert all(len(part) == PART_CHARS for part in parts[:-1]) and len(parts[-1]) > 0
    for n, (left, at) in enumerate(footers, 1):
        assert (at, left) == (n * PART_CHARS, len(text) - n * PART_CHARS)
    for n in range(4):  # every turn of the window, word for word
        stored = index.turn(f"big{n}")
        assert stored is not None
        assert f"asked:\n{stored.asked}\nanswered:\n{stored.answered}" in text
    assert tool.run("big1", radius=2, offset=len(text)).startswith("error: offset")


def test_hits_of_recall_history_carry_the_turn_id_recall_turn_opens(
    index: HistoryIndex, tool: RecallTurnTool, project: str
) -> None:
    record(index, "t-42", project, asked="the login function", answered="argon2id " * 400)
    found = RecallHistoryTool(index, project).run("login")
    (turn_id,) = re.findall(r"· turn (\S+) ·", found)
    assert turn_id == "t-42"
    assert tool.call({"turn_id": turn_id}).endswith("argon2id " * 399 + "argon2id ")


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"turn_id": ""},
        {"turn_id": "  "},
        {"turn_id": None},
        {"turn_id": 42},
        {"turn_id": ["t1"]},
        {"turn_id": "nowhere"},
        {"turn_id": "t1", "radius": -1},
        {"turn_id": "t1", "radius": 6},
        {"turn_id": "t1", "radius": 1.5},
        {"turn_id": "t1", "radius": "2"},
        {"turn_id": "t1", "radius": True},
        {"turn_id": "t1", "offset": -1},
        {"turn_id": "t1", "offset": 10**9},
        {"turn_id": "t1", "offset": "0"},
        {"turn_id": "t1", "offset": False},
        {"turn_id": "t1", "k": 3},
        ["t1"],
        "t1",
    ],
)
def test_every_bad_argument_gets_one_error_line(
    index: HistoryIndex, tool: RecallTurnTool, project: str, arguments: Any
) -> None:
    record(index, "t1", project)
    out = tool.call(arguments)
    assert out.startswith("error: ") and "\n" not in out and "Traceback" not in out
    assert len(out) < 200


def test_errors_say_how_to_fix_the_call(
    index: HistoryIndex, tool: RecallTurnTool, project: str
) -> None:
    record(index, "t1", project)
    assert "recall_history's results" in tool.call({})
    assert "0 to 5" in tool.call({"turn_id": "t1", "radius": 9})
    assert "may have been forgotten" in tool.run("nowhere")
    assert "past the end" in tool.run("t1", offset=5_000)
    assert tool.call({"turn_id": "t1", "radius": None, "offset": None}) == tool.run("t1")
    assert tool.call({"turn_id": "t1", "radius": 1.0}) == tool.run("t1", radius=1)


def test_a_forgotten_turn_is_not_found(
    index: HistoryIndex, tool: RecallTurnTool, project: str
) -> None:
    record(index, "t1", project)
    index.forget_session("conv-1")
    assert tool.run("t1").startswith("error: no turn has the id")


def test_a_failing_index_gives_one_line_not_a_traceback(project: str) -> None:
    class Broken:
        def turn(self, turn_id: str) -> None:
            raise RuntimeError("disk on fire")

    out = RecallTurnTool(Broken(), project).run("t1")  # type: ignore[arg-type]
    assert out.startswith("error: ") and "\n" not in out

"""The recall_history tool: what a model reads back, on a real index."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from history import HistoryIndex, project_key
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool
from history.tools.text import TAINT_LINE

pytestmark = pytest.mark.both_backends

NOW = datetime.now(UTC)


@pytest.fixture
def other(tmp_path: Path) -> str:
    (tmp_path / "other").mkdir()
    return str(tmp_path / "other")


@pytest.fixture
def tool(index: HistoryIndex, project: str) -> RecallHistoryTool:
    return RecallHistoryTool(index, project)


def record(
    index: HistoryIndex, turn_id: str, project: str, asked: str, answered: str, **extra: Any
) -> None:
    extra.setdefault("session_id", f"sess-{turn_id}")
    extra.setdefault("asked_at", NOW - timedelta(hours=1))
    assert index.record(turn_id=turn_id, project=project, asked=asked, answered=answered, **extra)


def blocks(output: str) -> list[str]:
    return output.split("\n\n")[1:]


def test_a_hit_is_dated_in_local_time_with_excerpts_and_files_told_apart(
    index: HistoryIndex, tool: RecallHistoryTool, project: str, local_tz: None
) -> None:
    asked_at = (NOW - timedelta(days=3)).replace(hour=8, minute=0, second=0, microsecond=0)
    filler = "Some unrelated context about the weather and lunch plans. " * 20
    record(
        index,
        "t1",
        project,
        filler + "Why does the login function reject expired tokens?",
        "We decided the login function refreshes the token first. " + filler,
        asked_at=asked_at,
        session_id="conv-42",
        files=["src/db.py", "README.md", f"{project}/src/auth.py"],
        edited=[f"{project}/src/auth.py"],
    )

    out = tool.run("login function")

    header, hit = out.split("\n\n")
    scope = f"in this project ({project_key(project)})"
    assert header == f'1 earlier turn matches "login function" {scope}; best first.'
    local = asked_at.astimezone()
    age = (datetime.now().astimezone().date() - local.date()).days
    assert local.strftime("%H:%M") == "13:30"  # 08:00 UTC shown as the local 13:30
    dated = f"[1] {local:%Y-%m-%d} 13:30 ({age} days ago) · turn t1 · conversation conv-42"
    assert hit.splitlines()[0] == dated
    asked = next(line for line in hit.splitlines() if line.startswith("asked: "))
    answered = next(line for line in hit.splitlines() if line.startswith("answered: "))
    assert asked.startswith("asked: …") and "login function reject expired tokens?" in asked
    assert answered.startswith("answered: We decided the login") and answered.endswith("…")
    assert "edited: src/auth.py" in hit.splitlines()
    assert "read: src/db.py, README.md" in hit.splitlines()
    assert TAINT_LINE not in out and "project:" not in out


def test_file_lists_are_capped_with_how_many_more(
    index: HistoryIndex, tool: RecallHistoryTool, project: str
) -> None:
    edited = [f"src/module_{i:02}/handlers.py" for i in range(12)]
    read = [f"docs/chapter_{i:02}.md" for i in range(30)]
    record(index, "t1", project, "refactor the login handlers", "done", files=read, edited=edited)

    lines = tool.run("login").splitlines()

    for label, paths in (("edited", edited), ("read", read)):
        line = next(line for line in lines if line.startswith(f"{label}: "))
        more = re.search(r" \+(\d+) more$", line)
        assert more, line
        shown = line.removeprefix(f"{label}: ").removesuffix(more.group(0)).split(", ")
        assert shown == paths[: len(shown)] and len(shown) + int(more.group(1)) == len(paths)


def test_three_different_nothings_each_say_what_to_do_next(
    index: HistoryIndex, tool: RecallHistoryTool, project: str, other: str
) -> None:
    empty = tool.run("login")
    assert empty.startswith("Nothing in the history of this project") and "everywhere=true" in empty
    record(index, "elsewhere", other, "login in another project", "ok")
    assert tool.run("login").startswith("Nothing in the history of this project")
    assert tool.run("nothing", everywhere=True).startswith("No earlier turn in any project")

    record(index, "old", project, "the login function", "kept", asked_at=NOW - timedelta(days=30))
    no_match = tool.run("database migration")
    assert no_match.startswith("No earlier turn in this project") and "other words" in no_match
    recent = tool.run("login", days=7)
    assert recent.startswith("No turn in this project (") and "last 7 days matches" in recent
    assert "older turn may match" in recent and "without days" in recent
    assert tool.run("login", days=31).startswith("1 earlier turn matches")


def test_the_taint_label_marks_exactly_the_tainted_turn(
    index: HistoryIndex, tool: RecallHistoryTool, project: str
) -> None:
    record(index, "clean", project, "login flow, plain", "fine", asked_at=NOW - timedelta(hours=2))
    record(index, "dirty", project, "login flow from a web page", "it said so", tainted=True)

    found = {b.splitlines()[0].split("conversation ")[1]: b for b in blocks(tool.run("login"))}

    assert f"\n{TAINT_LINE}\n" in found["sess-dirty"]
    assert TAINT_LINE not in found["sess-clean"]


def test_the_project_is_named_only_when_the_search_left_it(
    index: HistoryIndex, tool: RecallHistoryTool, project: str, other: str
) -> None:
    record(index, "here", project, "login here", "a")
    record(index, "there", other, "login there", "b")

    assert "project:" not in tool.run("login")
    found = {
        b.splitlines()[0].split("conversation ")[1]: b
        for b in blocks(tool.run("login", everywhere=True))
    }
    assert f"project: {project_key(other)}" in found["sess-there"].splitlines()
    assert "project:" not in found["sess-here"]


def test_a_turn_that_ran_recall_history_does_not_crowd_out_the_turns_it_quotes(
    index: HistoryIndex, tool: RecallHistoryTool, project: str
) -> None:
    for i in range(2):
        record(
            index,
            f"orig{i}",
            project,
            "login function: keep the session cookie",
            "decided",
            asked_at=NOW - timedelta(days=20 + i),
        )
    for i in range(12):
        quoted = "login function login function earlier: login function cookie " * 5
        record(
            index,
            f"quote{i}",
            project,
            f"what about the login function? {quoted}",
            quoted,
            tools=["recall_history", "read_file"],
        )
    # Left to bm25 alone, the quoting turns would fill the page.
    assert all(h.turn_id.startswith("quote") for h in index.search("login function", project, k=2))

    top = tool.run("login function", k=2)
    assert [b.splitlines()[0].split("conversation ")[1] for b in blocks(top)] == [
        "sess-orig0",
        "sess-orig1",
    ]
    ids = [b.splitlines()[0].split("conversation ")[1] for b in blocks(tool.run("login", k=5))]
    assert ids[:2] == ["sess-orig0", "sess-orig1"]  # demoted, not dropped
    assert all(i.startswith("sess-quote") for i in ids[2:]) and len(ids) == 5


def test_output_stays_bounded_for_k_10_however_long_the_turns(
    index: HistoryIndex, tool: RecallHistoryTool, other: str
) -> None:
    for i in range(14):
        deep = other + "/very/deep/nested" * 10
        words = " ".join(f"word{j} login" for j in range(8_000))
        record(
            index,
            f"huge{i}",
            deep,
            words,
            words,
            session_id="s" * 300 + str(i),
            tainted=True,
            tools=["recall_history"],
            files=[f"{deep}/f{j}.py" * 4 for j in range(300)],
            edited=[f"edited/{'x' * 90}{j}.py" for j in range(40)],
        )

    out = tool.run("login word7", k=10, everywhere=True)

    assert len(out) <= 4_000, len(out)
    assert len(blocks(out)) == 10 and out.count(TAINT_LINE) == 10
    assert all("asked: " in b and "answered: " in b for b in blocks(out))


def test_it_declares_itself_read_only_with_a_schema(tool: RecallHistoryTool) -> None:
    assert tool.read_only is True and tool.name == "recall_history"
    assert "not a memory store" in tool.description and "trimmed" in tool.description
    # An answer is excerpts: the model is told to search first and open one turn second.
    assert "Search first, then open only the turn you need: recall_turn" in tool.description
    schema = tool.parameters
    assert schema["required"] == ["query"] and schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["query"]["type"] == "string" and props["everywhere"]["type"] == "boolean"
    assert (props["k"]["minimum"], props["k"]["maximum"], props["k"]["default"]) == (1, 10, 5)
    assert props["days"]["type"] == "integer" and props["days"]["minimum"] == 1


@pytest.fixture(params=["recall_history", "recall_turn"])
def any_tool(
    request: pytest.FixtureRequest, index: HistoryIndex, project: str
) -> RecallHistoryTool | RecallTurnTool:
    kind = RecallHistoryTool if request.param == "recall_history" else RecallTurnTool
    return kind(index, project)


def test_specs_have_the_shapes_the_apis_accept(
    any_tool: RecallHistoryTool | RecallTurnTool,
) -> None:
    tool = any_tool
    # openai-python ChatCompletionFunctionToolParam / FunctionDefinition (Chat Completions)
    chat = tool.spec("openai")
    assert chat == {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }
    # openai-python responses FunctionToolParam: flat, `strict` defaults to true
    flat = tool.spec("openai-responses")
    assert flat == {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,
    }
    # anthropic-sdk-python ToolParam: name, description, input_schema of type object
    claude = tool.spec("anthropic")
    assert claude == {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    }
    assert claude["input_schema"]["type"] == "object"
    # MCP Tool as the SDK's own types read it
    mcp = tool.spec("mcp")
    parsed = mcp_types.Tool.model_validate(mcp)
    assert parsed.annotations and parsed.annotations.read_only_hint is True
    assert parsed.annotations.destructive_hint is False and parsed.input_schema == tool.parameters
    assert parsed.model_dump(by_alias=True, exclude_none=True) == mcp
    for spec in (chat, flat, claude, mcp):
        assert json.loads(json.dumps(spec)) == spec
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool.name)
    with pytest.raises(ValueError):
        tool.spec("gemini")


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"query": ""},
        {"query": "   "},
        {"query": None},
        {"query": 42},
        {"query": ["login"]},
        {"query": "the of and what was"},
        {"query": "?!#"},
        {"query": "login", "days": 0},
        {"query": "login", "days": -3},
        {"query": "login", "days": 2.5},
        {"query": "login", "days": "14"},
        {"query": "login", "days": True},
        {"query": "login", "days": 10**12},
        {"query": "login", "k": 0},
        {"query": "login", "k": 11},
        {"query": "login", "k": True},
        {"query": "login", "k": "5"},
        {"query": "login", "everywhere": "yes"},
        {"query": "login", "everywhere": 1},
        {"query": "login", "limit": 3},
        ["login"],
        "login",
    ],
)
def test_every_bad_argument_gets_one_error_line(
    index: HistoryIndex, tool: RecallHistoryTool, project: str, arguments: Any
) -> None:
    record(index, "t", project, "login", "ok")
    out = tool.call(arguments)
    assert out.startswith("error: ") and "\n" not in out and "Traceback" not in out
    assert len(out) < 200


def test_errors_say_how_to_fix_the_call(tool: RecallHistoryTool) -> None:
    assert "no word to search for" in tool.call({"query": "the of and"})
    assert "1 to 10" in tool.call({"query": "login", "k": 50})
    assert "positive whole number" in tool.run("login", days=0)
    assert '"limit"' in tool.call({"query": "x", "limit": 3})
    assert tool.run("").startswith("error: query")


def test_json_nulls_and_whole_floats_are_accepted(
    index: HistoryIndex, tool: RecallHistoryTool, project: str
) -> None:
    record(index, "t", project, "login", "ok")
    args = {"query": "login", "days": 14.0, "k": None, "everywhere": None}
    assert tool.call(args) == tool.run("login", days=14)
    assert tool.call({"query": "login", "days": None}) == tool.run("login")


def test_arguments_as_the_json_text_a_model_sends_are_taken(
    index: HistoryIndex, tool: RecallHistoryTool, project: str
) -> None:
    record(index, "t", project, "login", "ok")
    assert tool.call('{"query": "login", "days": 14}') == tool.run("login", days=14)
    assert tool.call(b'{"query": "login"}') == tool.run("login")
    assert tool.call("").startswith("error: query is missing")
    assert tool.call("{not json").startswith("error: arguments are not valid JSON")
    assert tool.call('["login"]').startswith("error: arguments must be a JSON object")


def test_a_failing_index_gives_one_line_not_a_traceback(project: str) -> None:
    class Broken:
        def search(self, *args: object, **kwargs: object) -> list[object]:
            raise RuntimeError("disk on fire")

    out = RecallHistoryTool(Broken(), project).run("login")  # type: ignore[arg-type]
    assert out.startswith("error: ") and "\n" not in out

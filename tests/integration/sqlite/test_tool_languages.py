"""recall_history and recall_turn in each of the ten languages: what a model reads (the tools'
descriptions in every spec shape, their answers, their errors) is in the language asked for;
the tools' names, their parameter names and the stored text stay as they are."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from history import HistoryIndex
from history.i18n import LANGUAGES, translator
from history.tools import recall_history, recall_turn
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool
from tests.helpers import glossary

FLAVORS = ("openai", "openai-responses", "anthropic", "mcp")
TRANSLATED = LANGUAGES[1:]
NOW = datetime.now(UTC)


@pytest.fixture(scope="module")
def shared_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HistoryIndex]:
    """One empty index for the tests that only read definitions and errors."""
    index = HistoryIndex.open(tmp_path_factory.mktemp("home") / "history.db")
    yield index
    index.close()


NOT_A_FLAG = cast(bool, "yes")


def said(tool_spec: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(name, description, parameters) of a spec in any flavor."""
    about = tool_spec.get("function", tool_spec)
    parameters = about.get("parameters") or about.get("input_schema") or about["inputSchema"]
    return about["name"], about["description"], parameters


def uses(concept: str, language: str, text: str) -> bool:
    return glossary.load().uses(concept, language, text)


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("make", [RecallHistoryTool, RecallTurnTool])
def test_every_spec_shape_describes_the_tool_in_the_language(
    shared_index: HistoryIndex, make: type[RecallHistoryTool], language: str
) -> None:
    index, project = shared_index, "/work/app"
    english, spoken = make(index, project), make(index, project, language=language)
    for flavor in FLAVORS:
        name, description, parameters = said(spoken.spec(flavor))
        english_name, english_description, english_parameters = said(english.spec(flavor))
        assert name == english_name
        assert description != english_description
        assert uses("conversation", language, description), (language, flavor, description)
        assert parameters["required"] == english_parameters["required"]
        assert list(parameters["properties"]) == list(english_parameters["properties"])
        for key, schema in parameters["properties"].items():
            english_schema = english_parameters["properties"][key]
            assert schema["description"] != english_schema["description"], (language, key)
            assert {**schema, "description": ""} == {**english_schema, "description": ""}
    title = spoken.spec("mcp")["annotations"]["title"]
    assert title != english.spec("mcp")["annotations"]["title"]
    # The class keeps the English definition: one instance's language is not another's.
    assert make.description == english.description


@pytest.mark.parametrize("language", ["tlh", "", "xx_YY.UTF-8", None])
def test_an_unknown_language_is_english_without_an_error(
    index: HistoryIndex, project: str, language: str | None
) -> None:
    tool = RecallHistoryTool(index, project, language=language)
    assert tool.language == "en"
    assert tool.description == recall_history.DESCRIPTION
    assert RecallTurnTool(index, project, language=language).description == recall_turn.DESCRIPTION
    assert tool.run("nothing").startswith("Nothing in the history of this project")


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_answers_headers_and_three_nothings_are_in_the_language(
    index: HistoryIndex, project: str, language: str
) -> None:
    tool = RecallHistoryTool(index, project, language=language)
    english = RecallHistoryTool(index, project)
    asked = "Why does the login function reject expired tokens?"
    empty = tool.run("login")
    assert empty != english.run("login") and uses("forget", language, empty), empty
    index.record(
        turn_id="t1",
        session_id="conv-1",
        project=project,
        asked=asked,
        answered="The login function refreshes the token first.",
        files=["src/auth.py"],
        edited=["src/auth.py"],
        tainted=True,
        asked_at=NOW - timedelta(days=3),
    )
    found = tool.run("login function", days=30)
    header, block = found.split("\n\n")
    assert header != english.run("login function", days=30).split("\n\n")[0]
    assert uses("turn", language, header) and uses("project", language, header), header
    assert glossary.load().messages["taint_label"][language] in block.splitlines()
    assert asked in block and "auth.py" in block  # the stored text as it was written
    assert uses("conversation", language, block.splitlines()[0]), block
    no_match = tool.run("parser")
    recent = tool.run("parser", days=1)
    assert no_match != english.run("parser") and uses("turn", language, no_match)
    assert recent != english.run("parser", days=1) and "days" in recent  # the parameter's name


@pytest.mark.parametrize("language", TRANSLATED)
def test_error_lines_are_one_line_in_the_language(
    shared_index: HistoryIndex, language: str
) -> None:
    index, project = shared_index, "/work/app"
    tool = RecallHistoryTool(index, project, language=language)
    english = RecallHistoryTool(index, project)
    turn_tool = RecallTurnTool(index, project, language=language)
    calls: list[tuple[Any, Any]] = [
        (tool.call("{not json"), english.call("{not json")),
        (tool.call([1]), english.call([1])),
        (tool.call({"q": "login"}), english.call({"q": "login"})),
        (tool.call({}), english.call({})),
        (tool.run("login", k=99), english.run("login", k=99)),
        (tool.run("login", days=0), english.run("login", days=0)),
        # A model may send any JSON value where a flag belongs.
        (tool.run("login", everywhere=NOT_A_FLAG), english.run("login", everywhere=NOT_A_FLAG)),
        (tool.run("   "), english.run("   ")),
        (
            turn_tool.call({"turn_id": "t-404"}),
            RecallTurnTool(index, project).call({"turn_id": "t-404"}),
        ),
        (turn_tool.run("t-1", radius=9), RecallTurnTool(index, project).run("t-1", radius=9)),
    ]
    for line, english_line in calls:
        assert line.startswith("error: ") and "\n" not in line, line
        assert line != english_line, line
    assert "q" in calls[2][0] and "query" in calls[2][0]  # names stay as the schema has them
    assert "99" in calls[4][0] and "10" in calls[4][0]


@pytest.mark.parametrize("language", TRANSLATED)
def test_recall_turn_reads_a_turn_and_its_conversation_in_the_language(
    index: HistoryIndex, project: str, language: str
) -> None:
    for n in range(3):
        index.record(
            turn_id=f"t{n}",
            session_id="conv-9",
            project=project,
            asked=f"Step {n} of the migration",
            answered="Done. " + "x" * (7_000 if n == 1 else 10),
            asked_at=NOW - timedelta(days=2, minutes=10 - n),
        )
    tool = RecallTurnTool(index, project, language=language)
    alone = tool.run("t1")
    assert uses("turn", language, alone.splitlines()[0])
    assert uses("conversation", language, alone.splitlines()[0])
    around = tool.run("t1", radius=2)
    assert uses("conversation", language, around.splitlines()[0]), around.splitlines()[0]
    assert "Step 0 of the migration" in around
    assert around.splitlines()[0] != RecallTurnTool(index, project).run("t1", radius=2)
    paged = RecallTurnTool(index, project, language=language)
    paged_text = paged.run("t1", radius=2, offset=0)
    if "offset=" in paged_text:  # a long answer says how to read on, in the language
        assert (
            paged_text.splitlines()[-1]
            != RecallTurnTool(index, project).run("t1", radius=2).splitlines()[-1]
        )


def test_translations_come_from_the_catalogue(index: HistoryIndex, project: str) -> None:
    """The German description is the catalogue's, word for word."""
    german = RecallHistoryTool(index, project, language="de_DE.UTF-8")
    assert german.language == "de"
    assert german.description == translator("tool", "de").gettext(recall_history.DESCRIPTION)
    assert "Unterhaltung" in german.description and "Verlauf" in german.description


def test_recall_mcp_language_serves_the_tools_in_that_language(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    HistoryIndex.open(home / "history.db").close()
    seen: dict[str, Any] = {}

    async def talk() -> None:
        server = StdioServerParameters(
            command=sys.executable,
            args=["-m", "history.cli", "mcp", "--language", "ja", "--project", str(project)],
            env={"RECALL_HOME": str(home), "LANG": "de_DE.UTF-8"},  # the flag wins
            cwd=str(tmp_path),
        )
        with anyio.fail_after(30):
            async with Client(server, read_timeout_seconds=20) as client:
                seen["tools"] = (await client.list_tools()).tools
                seen["empty"] = await client.call_tool("recall_history", {"query": "login"})
                seen["wrong"] = await client.call_tool("no_such_tool", {})

    anyio.run(talk)
    by_name = {tool.name: tool for tool in seen["tools"]}
    assert set(by_name) == {"recall_history", "recall_turn", "recall_file"}
    assert "会話" in (by_name["recall_history"].description or "")
    assert by_name["recall_turn"].title == "ターンを呼び出す"
    assert list(by_name["recall_history"].input_schema["properties"]) == [
        "query",
        "days",
        "k",
        "everywhere",
        "words_only",
    ]
    [empty] = seen["empty"].content
    assert isinstance(empty, TextContent) and "履歴には何もありません" in empty.text
    [wrong] = seen["wrong"].content
    assert isinstance(wrong, TextContent) and "ツールはありません" in wrong.text

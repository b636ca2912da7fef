"""`recall mcp` as an agent mounts it: the SDK's own client, over stdio, to a spawned server."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from history import HistoryIndex
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool
from history.version import package_version
from tests.helpers.mcp_client import text_of


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home the test fills through HistoryIndex before the server opens it."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "proj").mkdir()
    index = HistoryIndex.open(home / "history.db")
    index.record(
        turn_id="t1",
        session_id="conv-1",
        project=str(tmp_path / "proj"),
        asked="What did we decide about the login function?",
        answered="Refresh the token before validating the session.",
        files=["src/auth.py", "src/db.py"],
        edited=["src/auth.py"],
        asked_at=datetime.now(UTC) - timedelta(days=14),
    )
    index.close()
    return home


def test_an_agent_lists_both_tools_calls_them_and_gets_errors_as_tool_errors(
    home: Path, tmp_path: Path
) -> None:
    project = str(tmp_path / "proj")
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "history.mcp_server", "--project", project],
        env={"RECALL_HOME": str(home)},
        cwd=str(tmp_path),
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        with anyio.fail_after(30):
            await talk()

    async def talk() -> None:
        async with Client(server, read_timeout_seconds=20) as client:
            seen["tools"] = (await client.list_tools()).tools
            seen["good"] = await client.call_tool("recall_history", {"query": "login function"})
            seen["bad"] = await client.call_tool("recall_history", {"query": "login", "k": 0})
            seen["unknown"] = await client.call_tool("recall_history", {"q": "login"})
            seen["again"] = await client.call_tool("recall_history", {"query": "token", "days": 30})
            seen["turn"] = await client.call_tool("recall_turn", {"turn_id": "t1", "radius": 1})
            seen["no turn"] = await client.call_tool("recall_turn", {"turn_id": "nowhere"})
            seen["bad turn"] = await client.call_tool("recall_turn", {"turn_id": "t1", "radius": 9})

    anyio.run(session)

    index = HistoryIndex.open(home / "history.db")
    tool = RecallHistoryTool(index, project)
    turn_tool = RecallTurnTool(index, project)
    try:
        listed = {listed.name: listed for listed in seen["tools"]}
        assert listed.keys() == {"recall_history", "recall_turn", "recall_file"}
        for served in (tool, turn_tool):
            assert listed[served.name].description == served.description
            assert listed[served.name].input_schema == served.parameters
            annotations = listed[served.name].annotations
            assert annotations is not None and annotations.read_only_hint is True

        assert seen["good"].is_error is not True
        assert text_of(seen["good"]) == tool.run("login function")
        assert "edited: src/auth.py" in text_of(seen["good"])

        for bad, expected in (
            (seen["bad"], tool.run("login", k=0)),
            (seen["unknown"], tool.call({"q": "login"})),
        ):
            assert bad.is_error is True
            assert text_of(bad) == expected and expected.startswith("error: ")

        assert seen["again"].is_error is not True  # still serving after the errors
        assert text_of(seen["again"]) == tool.run("token", days=30)

        assert seen["turn"].is_error is not True
        assert text_of(seen["turn"]) == turn_tool.run("t1", radius=1)
        assert "Refresh the token before validating the session." in text_of(seen["turn"])
        for bad, expected in (
            (seen["no turn"], turn_tool.run("nowhere")),
            (seen["bad turn"], turn_tool.call({"turn_id": "t1", "radius": 9})),
        ):
            assert bad.is_error is True
            assert text_of(bad) == expected and expected.startswith("error: ")
    finally:
        index.close()


def test_the_server_names_its_version_and_offers_only_what_it_serves(
    home: Path, tmp_path: Path
) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "history.mcp_server"],
        env={"RECALL_HOME": str(home)},
        cwd=str(tmp_path),
    )
    seen: dict[str, Any] = {}

    async def talk() -> None:
        with anyio.fail_after(30):
            async with Client(server, read_timeout_seconds=20) as client:
                seen["info"], seen["capabilities"] = client.server_info, client.server_capabilities
                seen["unknown"] = await client.call_tool("recall_everything", {"query": "x"})

    anyio.run(talk)

    assert seen["info"].name == "recall-history" and seen["info"].version == package_version()
    assert package_version() != "0+unknown"
    capabilities = seen["capabilities"]
    assert capabilities.tools is not None and not capabilities.tools.list_changed
    assert capabilities.prompts is None and capabilities.resources is None
    assert capabilities.completions is None and capabilities.logging is None
    assert seen["unknown"].is_error is True
    assert text_of(seen["unknown"]).startswith("error: no tool is named 'recall_everything'")

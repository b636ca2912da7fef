"""recall_file through the MCP SDK's client and in every spec shape, and GET /api/code/files."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from history import HistoryIndex
from history.api import create_app
from history.tools.recall_file import RecallFileTool
from tests.helpers.git_repo import LOGIN
from tests.helpers.mcp_client import text_of
from tests.helpers.paths import ROOT


def test_an_agent_asks_who_wrote_a_file_and_a_line_over_mcp(
    shop: Path,
    index: HistoryIndex,
    database_url: str,
    tmp_path: Path,
) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "history.mcp_server", "--project", str(shop), "--database-url", database_url],
        # This tree's package, not another one installed.
        env={"RECALL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)},
        cwd=str(tmp_path),
    )
    seen: dict[str, Any] = {}

    async def talk() -> None:
        with anyio.fail_after(30):
            async with Client(server, read_timeout_seconds=20) as client:
                seen["tools"] = (await client.list_tools()).tools
                seen["file"] = await client.call_tool("recall_file", {"path": LOGIN})
                seen["line"] = await client.call_tool("recall_file", {"path": LOGIN, "line": 3})
                seen["bad"] = await client.call_tool("recall_file", {"path": LOGIN, "line": 0})

    anyio.run(talk)
    tool = RecallFileTool(index, str(shop))
    listed = {listed.name: listed for listed in seen["tools"]}
    assert listed["recall_file"].input_schema == tool.parameters
    annotations = listed["recall_file"].annotations
    assert annotations is not None and annotations.read_only_hint is True
    file_answer = text_of(seen["file"])
    assert file_answer == tool.run(LOGIN)
    assert "2 turns edited src/auth/login.py" in file_answer and "turn t2" in file_answer
    # dated as the tool dates a turn (hours ago: "today", or "yesterday" just after midnight)
    assert re.search(r"\((today|yesterday)\)", file_answer), file_answer
    line_answer = text_of(seen["line"])
    assert "Who wrote line 3" in line_answer and "exact text + same commit" in line_answer
    assert seen["bad"].is_error is True and text_of(seen["bad"]).startswith("error: line must be")


def test_the_tool_in_every_spec_shape_and_in_another_language(
    shop: Path,
    index: HistoryIndex,
) -> None:
    tool = RecallFileTool(index, str(shop))
    for flavor in ("openai", "openai-responses", "anthropic", "mcp"):
        assert "recall_file" in str(tool.spec(flavor))
    assert tool.call({"path": "nowhere.py"}).startswith("No recorded turn edited nowhere.py")
    assert tool.call({"k": 2}).startswith("error: path is missing")


def test_the_route_answers_a_file_its_lines_and_bad_input(
    shop: Path,
    index: HistoryIndex,
) -> None:
    client = TestClient(create_app(index))
    found = client.get("/api/code/files", params={"path": str(shop / LOGIN)})
    assert found.status_code == 200
    body = found.json()
    assert [turn["turn_id"] for turn in body["turns"]] == ["t2", "t1"]
    assert body["removed_lines_recorded"] is True
    assert body["turns"][0]["removed"] == ["    return check(user)"]
    lines = client.get(
        "/api/code/files", params={"path": LOGIN, "project": str(shop), "line": "1-2"}
    )
    assert lines.status_code == 200
    first, second = lines.json()["lines"]
    assert first["turn"] is None and first["commit"]
    assert second["turn"]["turn_id"] == "t1" and second["how"] == ["exact_text", "same_commit"]
    for params, status in (
        ({"path": LOGIN}, 400),
        ({"path": str(shop / LOGIN), "line": "5-2"}, 400),
        ({"path": str(shop / LOGIN), "line": "99"}, 400),
        ({"path": str(shop / "gone.py"), "line": "1"}, 404),
        ({"path": str(shop / LOGIN), "line": "x"}, 422),
    ):
        answer = client.get("/api/code/files", params=params)
        assert answer.status_code == status, params
        assert answer.json()["detail"]


pytestmark = pytest.mark.both_backends

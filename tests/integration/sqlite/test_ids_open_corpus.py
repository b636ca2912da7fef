"""The search-then-open flow on the real transcripts of each agent: every id `recall search`
prints (as text and as JSON), pasted into `recall show`, recall_turn or the MCP server's
recall_turn, opens the same turn."""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from history import HistoryIndex
from history.cli import main
from history.domain import Turn
from history.function_words import FUNCTION_WORDS
from history.query import words
from history.tools.recall_turn import RecallTurnTool
from tests.helpers.corpus import CORPUS

AGENTS = ("claude-code", "codex", "aider", "gemini")
PRINTED = re.compile(r"^\[\d+\] .*? · turn (.+?) · conversation ", re.MULTILINE)


def recall(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str]:
    code = main(["--home", str(home), *args])
    return code, capsys.readouterr().out


@pytest.fixture
def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[Turn]]:
    """A home holding every real transcript of the four agents, imported as a person would,
    and every turn it holds."""
    home = tmp_path / "home"
    for agent in AGENTS:
        code, said = recall(capsys, home, "import", agent, str(CORPUS / agent))
        assert code == 0, said
    index = HistoryIndex.open(home / "history.db")
    try:
        sessions = index.conversations(None, limit=1_000)
        turns = [turn for s in sessions for turn in index.conversation(s.session_id, None, 0)]
    finally:
        index.close()
    assert {turn.turn_id.split(":", 1)[0] for turn in turns} == set(AGENTS)
    return home, turns


def rarest_words(turn: Turn, seen: Counter[str], most: int = 6) -> list[str]:
    """The words of the turn that fewest other turns hold: a search a person could type."""
    text = f"{turn.asked} {turn.answered}"
    own = list(dict.fromkeys(w for w in words(text) if len(w) > 3 and w not in FUNCTION_WORDS))
    return sorted(own, key=lambda word: (seen[word], own.index(word)))[:most]


def test_every_id_search_prints_opens_the_same_turn_in_recall_show_and_recall_turn(
    imported: tuple[Path, list[Turn]], capsys: pytest.CaptureFixture[str]
) -> None:
    home, turns = imported
    seen = Counter(w for turn in turns for w in set(words(f"{turn.asked} {turn.answered}")))
    index = HistoryIndex.open(home / "history.db")
    opened: set[str] = set()
    searched: set[str] = set()
    try:
        for turn in turns:
            if not (query := rarest_words(turn, seen)):
                continue  # nothing to search for (an empty or one-word turn)
            searched.add(turn.turn_id)
            scope = ("--project", turn.project, "-k", "10")
            code, text = recall(capsys, home, "search", *query, *scope)
            assert code == 0, (turn.turn_id, query)
            printed = PRINTED.findall(text)
            code, out = recall(capsys, home, "search", *query, *scope, "--json")
            as_json = [hit["turn_id"] for hit in json.loads(out)]
            assert turn.turn_id in printed and turn.turn_id in as_json, (turn.turn_id, query)
            assert set(printed) == set(as_json)
            tool = RecallTurnTool(index, turn.project)
            for turn_id in printed:
                if turn_id in opened:
                    continue
                code, out = recall(capsys, home, "show", turn_id, "--json")
                assert code == 0 and json.loads(out)["turn_id"] == turn_id
                first = tool.run(turn_id).splitlines()[0]
                assert first.startswith(f"turn {turn_id} · "), first
                opened.add(turn_id)
    finally:
        index.close()
    assert len(searched) >= 0.9 * len(turns) and opened >= searched
    assert any(len(turn_id) > 64 for turn_id in opened)  # Claude Code's, once cut at 64


def text_of(result: Any) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    text: str = result.content[0].text
    return text


def test_every_id_the_mcp_servers_recall_history_prints_opens_its_turn_there(
    imported: tuple[Path, list[Turn]], tmp_path: Path
) -> None:
    home, turns = imported
    claude = next(turn for turn in turns if turn.turn_id.startswith("claude-code:"))
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "history.mcp_server", "--project", claude.project],
        env={"RECALL_HOME": str(home), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        cwd=str(tmp_path),
    )
    seen: dict[str, str] = {}

    async def talk() -> None:
        with anyio.fail_after(60):
            async with Client(server, read_timeout_seconds=30) as client:
                query = " ".join(words(claude.asked)[:8])
                found = text_of(await client.call_tool("recall_history", {"query": query}))
                seen["found"] = found
                for turn_id in PRINTED.findall(found):
                    opened = await client.call_tool("recall_turn", {"turn_id": turn_id})
                    assert opened.is_error is not True
                    seen[turn_id] = text_of(opened)

    anyio.run(talk)

    printed = PRINTED.findall(seen["found"])
    assert claude.turn_id in printed
    for turn_id in printed:
        assert seen[turn_id].startswith(f"turn {turn_id} · ")

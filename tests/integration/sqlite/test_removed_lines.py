"""An edit keeps the lines it removed beside those it added, where the agent's log says: on the
real Claude Code, Aider and Gemini CLI sessions, in the work log a blame reads, and in recall
blame's answer as a diff (removed, then added)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from history import HistoryIndex
from history.cli import main
from history.importers.base import TurnDraft
from history.importers.tool_calls import ToolKinds, apply_call
from history.importers.whole import Edit, edits
from tests.helpers.corpus import CORPUS


@pytest.fixture(scope="module")
def removed_by_agent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Edit]]:
    home = tmp_path_factory.mktemp("home")
    for agent in ("claude-code", "aider", "gemini"):
        assert main(["--home", str(home), "import", agent, str(CORPUS / agent)]) == 0
    index = HistoryIndex.open(home / "history.db")
    found: dict[str, list[Edit]] = {}
    try:
        for project in index.projects():
            for session in index.session_ids(project.project):
                for turn in index.conversation(session):
                    agent = turn.turn_id.split(":")[0]
                    found.setdefault(agent, [])
                    found[agent] += [edit for edit in edits(turn.work) if edit.removed]
    finally:
        index.close()
    return found


@pytest.mark.parametrize("agent", ["claude-code", "aider", "gemini"])
def test_the_real_sessions_edits_keep_the_lines_they_removed(
    removed_by_agent: dict[str, list[Edit]], agent: str
) -> None:
    assert removed_by_agent[agent], f"no {agent} edit kept a removed line"


def test_a_claude_code_edit_keeps_its_old_text_beside_its_new(
    removed_by_agent: dict[str, list[Edit]],
) -> None:
    [hello] = [edit for edit in removed_by_agent["claude-code"] if edit.path == "hello.py"][:1]
    assert hello.removed[0] == "#!/usr/bin/env python3" and hello.added


def test_a_search_replace_diff_removes_its_search_text() -> None:
    turn = TurnDraft("t", "s", "/p", "asked", datetime.now(UTC))
    diff = "------- SEARCH\nold = 1\n=======\nnew = 2\n+++++++ REPLACE\n"
    kinds = ToolKinds(edit=frozenset({"replace_in_file"}))
    apply_call(turn, "replace_in_file", {"path": "a.py", "diff": diff}, kinds)
    assert edits(turn.finish().work) == [Edit("a.py", ("new = 2",), ("old = 1",))]


def test_blame_shows_an_edit_as_removed_then_added_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    turn = TurnDraft("t", "s", str(tmp_path), "Rename the flag", datetime.now(UTC))
    turn.apply_patch(
        "*** Begin Patch\n*** Update File: app.py\n@@\n-DEBUG = True\n+VERBOSE = True\n"
    )
    index = HistoryIndex.open(tmp_path / "history.db")
    try:
        assert index.record_many([turn.finish()]).new == 1
    finally:
        index.close()
    (tmp_path / "app.py").write_text("VERBOSE = True\n")
    database = str(tmp_path / "history.db")
    assert main(["--database-url", database, "blame", str(tmp_path / "app.py")]) == 0
    out = capsys.readouterr().out
    assert out.index("  - DEBUG = True") < out.index("  + VERBOSE = True")

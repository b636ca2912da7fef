"""`recall hook AGENT` for the agents that offer a hook besides Claude Code: Codex's `notify`
(the JSON as the last argument, naming a thread), Gemini CLI's `AfterAgent` and Cursor's `stop`
(JSON on stdin naming the transcript). Each imports just that session, prints nothing on stdout
and exits 0, and agrees with a later `recall import`."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from history import HistoryIndex
from history.importers import FORMATS
from history.importers.hooks import HOOK_AGENTS
from history.importers.run import import_transcripts
from tests.helpers.cli_runs import recall
from tests.helpers.corpus import CORPUS
from tests.helpers.paths import IMPORTERS, ROOT

FIXTURES = IMPORTERS
THREAD = "019b7f94-51b4-7593-922e-ba12b5b73b52"
CONVERSATION = "e1d2c3b4-a5f6-4789-8abc-def012345678"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake user home, which both the agents' stores and recall's history live under."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "recall"))
    for name in ("CODEX_HOME", "GEMINI_CLI_HOME", "RECALL_SERVER", "RECALL_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def codex_rollout(home: Path) -> Path:
    day = home / ".codex" / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2026-01-02T16-39-45-{THREAD}.jsonl"
    shutil.copy(CORPUS / "codex" / "codemie-exec-repo-summary.jsonl", rollout)
    return rollout


def cursor_transcript(home: Path) -> Path:
    shutil.copytree(FIXTURES / "cursor" / "projects", home / ".cursor" / "projects")
    found = home / ".cursor" / "projects" / "home-dev-shop" / "agent-transcripts"
    return found / f"{CONVERSATION}.jsonl"


def hook(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    stdin: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return recall(capsys, "hook", agent)


def holds_exactly(home: Path, agent: str, transcript: Path) -> bool:
    """Whether the history holds the transcript's turns (as the agent's reader reads them) and
    nothing else."""
    ids = [turn.turn_id for turn in FORMATS[agent].read(transcript).turns]
    index = HistoryIndex.open(home / "recall" / "history.db")
    try:
        return bool(ids) and index.count() == len(ids) and all(index.turn(i) for i in ids)
    finally:
        index.close()


def test_codexs_notify_passes_its_json_as_an_argument_and_the_threads_rollout_is_imported(
    home: Path,
) -> None:
    rollout = codex_rollout(home)
    payload = {
        "type": "agent-turn-complete",
        "thread-id": THREAD,
        "turn-id": "12",
        "cwd": "/home/dev/codemie-code",
        "input-messages": ["what is current repository about?"],
        "last-assistant-message": "A CLI for coding agents.",
    }
    command = [sys.executable, "-m", "history.cli", "hook", "codex", json.dumps(payload)]
    # Codex gives the program no stdin: the argument alone carries the payload.
    done = subprocess.run(
        command, env=dict(os.environ), stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert holds_exactly(home, "codex", rollout)
    index = HistoryIndex.open(home / "recall" / "history.db")
    again = import_transcripts(index, [FORMATS["codex"]], rollout)
    index.close()
    assert (again.new, again.updated, again.unchanged) == (0, 0, 1)


def test_gemini_clis_after_agent_hook_imports_the_transcript_it_names(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = home / ".gemini" / "tmp"
    shutil.copytree(FIXTURES / "gemini" / "store" / "tmp", store)
    shutil.copy(FIXTURES / "gemini" / "store" / "projects.json", home / ".gemini")
    session = store / "shop" / "chats" / "session-2026-03-01T10-00-s-gem-1.jsonl"
    payload = {
        "session_id": "s-gem-1",
        "transcript_path": str(session),
        "cwd": "/home/dev/shop",
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-03-01T10:05:00Z",
    }
    assert hook(capsys, monkeypatch, "gemini", json.dumps(payload)) == (0, "", "")
    assert holds_exactly(home, "gemini", session)


def test_cursors_stop_hook_imports_by_transcript_path_or_by_conversation_id(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = cursor_transcript(home)
    by_id = {
        "conversation_id": CONVERSATION,
        "generation_id": "g-1",
        "hook_event_name": "stop",
        "status": "completed",
        "workspace_roots": ["/home/dev/shop"],
    }
    assert hook(capsys, monkeypatch, "cursor", json.dumps(by_id)) == (0, "", "")
    assert holds_exactly(home, "cursor", transcript)
    by_path = {**by_id, "transcript_path": str(transcript)}
    code, out, err = hook(capsys, monkeypatch, "cursor", json.dumps(by_path))
    assert (code, out, err) == (0, "", "")
    assert holds_exactly(home, "cursor", transcript)


@pytest.mark.parametrize(
    ("agent", "payload"),
    [
        ("codex", {"type": "agent-turn-complete", "thread-id": "*"}),
        ("cursor", {"conversation_id": "../../etc/passwd", "hook_event_name": "stop"}),
        ("cursor", {"conversation_id": "*", "workspace_roots": "/home/dev/shop"}),
        ("gemini", {"session_id": "s", "transcript_path": "/nowhere/session-1.json"}),
        ("gemini", ["not", "an", "object"]),
    ],
)
def test_a_hook_naming_no_transcript_imports_nothing_and_exits_0(
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    payload: object,
) -> None:
    codex_rollout(home)
    cursor_transcript(home)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    code, out, _ = recall(capsys, "hook", agent)
    assert (code, out) == (0, "")
    database = home / "recall" / "history.db"
    if database.exists():
        index = HistoryIndex.open(database)
        assert index.count() == 0
        index.close()


def test_a_codex_thread_with_no_rollout_says_so_in_one_line_on_stderr(home: Path) -> None:
    codex_rollout(home)
    payload = json.dumps({"type": "agent-turn-complete", "thread-id": "0000-no-such-thread"})
    command = [sys.executable, "-m", "history.cli", "hook", "codex", payload]
    done = subprocess.run(
        command, env=dict(os.environ), stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, "")
    said = "recall hook: the hook names no transcript that exists; nothing imported\n"
    assert done.stderr == said


def test_the_readme_shows_a_working_hook_for_every_agent_that_has_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"recall hook ([a-z-]+)", readme))
    named |= {"codex"} if '["recall", "hook", "codex"]' in readme else set()
    assert named == set(HOOK_AGENTS)

"""`recall import` and `recall hook`: output, exit codes, and the hook's silence on stdout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from history import HistoryIndex, history_for
from tests.helpers.cli_runs import recall
from tests.helpers.importing import FIXTURES, SESSION, hook_input, prompt, write

HOOK = [sys.executable, "-m", "history.cli", "hook", "claude-code"]


def test_import_prints_one_sentence_then_a_reimport_changes_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = recall(capsys, "import", "auto", str(FIXTURES))
    assert code == 0
    assert out == (
        "Read 15 files (16 sessions, 883 lines, 8 skipped): 36 turns new, 0 updated, 0 unchanged.\n"
    )
    assert "were not JSON objects" in err  # problems go to stderr
    code, out, _ = recall(capsys, "import", "auto", str(FIXTURES))
    assert (code, "0 turns new, 0 updated, 36 unchanged" in out) == (0, True)


def test_one_format_passes_over_the_files_of_another_agent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(FIXTURES / "claude_subagents" / "sess-1.jsonl", mixed / "claude.jsonl")
    shutil.copy(FIXTURES / "codex_edge.jsonl", mixed / "rollout.jsonl")

    code, out, err = recall(capsys, "import", "claude-code", str(mixed))

    assert code == 0 and err == ""  # no line of the Codex file read as an unknown Claude type
    assert out.startswith("Read 1 file (1 session, 4 lines, 0 skipped)")
    assert out.rstrip().endswith(
        "; 1 file of another agent passed over (`recall import auto` reads every format)."
    )
    code, out, _ = recall(capsys, "import", "codex", str(mixed / "claude.jsonl"))
    assert code == 1 and out.startswith(f"No transcripts found in {mixed / 'claude.jsonl'}; 1 file")


def test_import_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = recall(capsys, "import", "codex", str(FIXTURES / "codex_edge.jsonl"), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary == {
        "files": 1,
        "unreadable_files": 0,
        "sessions": 1,
        "turns": {"new": 2, "updated": 0, "unchanged": 0, "forgotten": 0, "failed": 0},
        "lines": 20,
        "skipped_lines": 2,
        "other_format_files": 0,
        "problems": summary["problems"],
        "roots": [str(FIXTURES / "codex_edge.jsonl")],
    }
    assert len(summary["problems"]) == 2 and all(isinstance(p, str) for p in summary["problems"])


def test_forgotten_sessions_come_back_only_with_include_forgotten(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "s-grow.jsonl", SESSION)
    assert recall(capsys, "import", "claude-code", str(path))[0] == 0
    assert recall(capsys, "forget", "--session", "s-grow", "--yes")[0] == 0
    code, out, _ = recall(capsys, "import", "claude-code", str(path), "--json")
    assert (code, json.loads(out)["turns"]["forgotten"]) == (0, 3)
    assert (
        "3 turns of forgotten sessions left out"
        in recall(capsys, "import", "claude-code", str(path))[1]
    )
    code, out, _ = recall(capsys, "import", "claude-code", str(path), "--include-forgotten")
    assert (code, "3 turns new" in out, history_for(None).count()) == (0, True, 3)


def test_default_places_and_nothing_found(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code, out, _ = recall(capsys, "import", "codex")
    codex = tmp_path / ".codex"
    looked = f"{codex / 'sessions'}, {codex / 'archived_sessions'}"
    assert (code, out) == (1, f"No transcripts found in {looked}.\n")
    assert recall(capsys, "import", "auto", "--json")[0] == 1
    (projects := tmp_path / ".claude" / "projects" / "-home-dev-shop").mkdir(parents=True)
    write(projects / "s-grow.jsonl", SESSION)
    code, out, _ = recall(capsys, "import", "auto", "--json")
    assert (code, json.loads(out)["turns"]["new"], json.loads(out)["files"]) == (0, 3, 1)


@pytest.mark.parametrize(
    "args",
    [
        ("import", "windsurf"),
        ("import", "codex", "/no/such/place"),
        ("import",),
        ("hook", "windsurf"),
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    code, out, err = recall(capsys, *args)
    assert (code, out) == (2, "") and err


def test_the_hook_through_the_entry_point_is_silent_and_the_turn_searchable(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    path = write(tmp_path / "s-grow.jsonl", [*SESSION, prompt(4, "Speed up the cart page")])
    env = {**os.environ, "RECALL_HOME": str(home)}
    done = subprocess.run(HOOK, input=hook_input(path), env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    index = HistoryIndex.open(home / "history.db")
    [hit] = index.search("speed cart page", project="/home/dev/shop", k=1)
    assert hit.session_id == "s-grow" and index.count() == 4
    index.close()


@pytest.mark.parametrize("stdin", ["not json", '{"transcript_path": "/nowhere/x.jsonl"}'])
def test_a_failing_hook_still_exits_0_and_prints_nothing_on_stdout(
    tmp_path: Path, stdin: str
) -> None:
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "home")}
    done = subprocess.run(HOOK, input=stdin, env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith("recall hook: ")


def test_a_hook_whose_home_cannot_be_opened_exits_0(tmp_path: Path) -> None:
    (blocker := tmp_path / "not-a-dir").write_text("")
    path = write(tmp_path / "s-grow.jsonl", SESSION)
    env = {**os.environ, "RECALL_HOME": str(blocker / "home")}
    done = subprocess.run(HOOK, input=hook_input(path), env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "") and "nothing imported" in done.stderr

"""Whole turns: every assistant text of a turn in its answer, and the work it did, from the real
Claude Code, Codex and Aider transcripts; the bounds; the hook and the import agreeing."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history import HistoryIndex
from history.importers import FORMATS, ImportedTurn
from history.importers.aider import WATCH_REQUEST
from history.importers.run import import_hook, import_transcripts
from history.importers.whole import (
    EDIT_LINES,
    WORK_CHARS,
    Edit,
    WorkLog,
    edits,
    join_answers,
    patch_changes,
)
from history.limits import MAX_TEXT_CHARS
from tests.helpers.corpus import CORPUS
from tests.helpers.importing import prompt, write


def corpus_files(fmt: str) -> list[Path]:
    return list(FORMATS[fmt].discover(CORPUS / fmt))


def lines_of(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


# The assistant texts of each turn, read from the files directly (not through the readers):
# the reader only names where each turn starts.


def claude_texts(path: Path, turns: list[ImportedTurn]) -> dict[str, list[str]]:
    starts = {turn.turn_id.rsplit(":", 1)[1]: turn.turn_id for turn in turns}
    texts: dict[str, list[str]] = {}
    current = None
    for line in lines_of(path):
        current = starts.get(str(line.get("uuid")), current)
        if current and line.get("type") == "assistant" and not line.get("isSidechain"):
            for block in line["message"]["content"]:
                if block.get("type") == "text" and block["text"].strip():
                    texts.setdefault(current, []).append(block["text"].strip())
    return texts


def codex_texts(path: Path, turns: list[ImportedTurn]) -> dict[str, list[str]]:
    pending = list(turns)
    texts: dict[str, list[str]] = {}
    current = None
    for line in lines_of(path):
        payload = line.get("payload", {})
        if payload.get("type") == "user_message" and pending:
            if payload["message"].strip() == pending[0].asked:
                current = pending.pop(0).turn_id
        elif current and payload.get("type") == "message" and payload.get("role") == "assistant":
            text = "".join(part.get("text", "") for part in payload["content"]).strip()
            if text:
                texts.setdefault(current, []).append(text)
    return texts


def aider_texts(path: Path, turns: list[ImportedTurn]) -> dict[str, list[str]]:
    """Per typed prompt, its replies: runs of plain lines that aider's `> ` lines separate."""
    pending = [turn for turn in turns if turn.asked != WATCH_REQUEST]
    texts: dict[str, list[str]] = {}
    current, thinking = None, False
    prompt: list[str] = []
    run: list[str] = []

    def end_run() -> None:
        if current and "\n".join(run).strip():
            texts.setdefault(current, []).append("\n".join(run).strip())
        run.clear()

    for line in [*path.read_text(encoding="utf-8").splitlines(), "# end"]:
        line = line.rstrip()
        if line.startswith("####"):
            prompt.append(line[5:].rstrip())
            continue
        if prompt:
            asked = "\n".join(prompt).strip()
            prompt = []
            if pending and asked == pending[0].asked:
                end_run()
                current = pending.pop(0).turn_id
        if line.startswith("<thinking-content-") or thinking:
            thinking = not line.startswith("</thinking-content-")
        elif line.startswith(("> ", "# aider chat started")) or line == ">":
            end_run()
            if line.startswith(("> Processing your request", "# aider chat started")):
                current = None
        else:
            run.append(line)
    return texts


TEXTS = {"claude-code": claude_texts, "codex": codex_texts, "aider": aider_texts}
WORD = re.compile(r"[A-Za-z]{4,}")


def several_texts(fmt: str) -> list[tuple[Path, ImportedTurn, list[str]]]:
    found = []
    for path in corpus_files(fmt):
        turns = FORMATS[fmt].read(path).turns
        texts = TEXTS[fmt](path, turns)
        found += [
            (path, turn, texts[turn.turn_id])
            for turn in turns
            if len(texts.get(turn.turn_id, [])) >= 2
        ]
    return found


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_a_turns_first_text_is_in_its_answer_and_finds_it(fmt: str, tmp_path: Path) -> None:
    turns = several_texts(fmt)
    assert len(turns) == {"claude-code": 8, "codex": 1, "aider": 11}[fmt]
    index = HistoryIndex.open(tmp_path / "h.db")
    for path in {path for path, _, _ in turns}:
        import_transcripts(index, [FORMATS[fmt]], path)
    for _, turn, texts in turns:
        first_line = texts[0].splitlines()[0].strip()
        assert first_line in turn.answered, (turn.turn_id, first_line)
        assert texts[-1].splitlines()[-1].strip() in turn.answered
        phrase = " ".join(dict.fromkeys(WORD.findall(first_line)))
        hits = index.search(phrase, project=turn.project, k=5)
        assert turn.turn_id in [hit.turn_id for hit in hits], (turn.turn_id, phrase)
    index.close()


def test_the_multiply_sessions_first_words_find_it(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "h.db")
    path = CORPUS / "claude-code/reliability-coverage-test-fix.jsonl"
    import_transcripts(index, [FORMATS["claude-code"]], path)
    [hit] = index.search("positive negative zero", project="/tmp/tmpw6sk2trg")
    assert "multiplication with positive numbers, negative numbers, and zero" in hit.answered
    index.close()


def work_of(fmt: str, name: str, number: int = 0) -> str:
    return FORMATS[fmt].read(CORPUS / name).turns[number].work


def test_claude_codes_work_commands_edits_and_failures() -> None:
    work = work_of("claude-code", "claude-code/reliability-coverage-test-fix.jsonl").splitlines()
    assert "$ python -m pytest tests/test_math_utils.py -v" in work
    assert "+ def multiply_numbers(a: int, b: int) -> int:" in work  # Edit's new_string
    assert "~ .gitignore" in work
    # `git commit` with nothing to commit: an is_error tool result, its first lines.
    at = work.index("! Exit code 1")
    assert work[at : at + 3] == [
        "! Exit code 1",
        "! On branch master",
        "! nothing to commit, working tree clean",
    ]
    hello = work_of("claude-code", "claude-code/codemie-hello-files.jsonl").splitlines()
    assert hello[:2] == ["~ hello.py", "+ #!/usr/bin/env python3"]  # Write's content
    assert '+     print("Hello, World!")' in hello
    rejected = work_of("claude-code", "claude-code/entireio-cli--37-995ebed6e4-3-full.jsonl")
    assert "! The user doesn't want to proceed with this tool use." in rejected


def test_claude_codes_sub_agent_work_folds_into_its_turn_and_its_text_never_answers(
    tmp_path: Path,
) -> None:
    main = shutil.copy(CORPUS / "claude-code/codemie-cli-spec.jsonl", tmp_path / "s.jsonl")
    (tmp_path / "s" / "subagents").mkdir(parents=True)
    shutil.copy(
        CORPUS / "claude-code/codemie-cli-spec.subagent-a485154.jsonl",
        tmp_path / "s" / "subagents" / "agent-a485154.jsonl",
    )
    alone = FORMATS["claude-code"].read(CORPUS / "claude-code/codemie-cli-spec.jsonl").turns[0]
    (turn,) = FORMATS["claude-code"].read(Path(main)).turns
    assert "$ ls -la /Users/User/repo/codemie-ai/codemie-code/specs" not in alone.work
    assert "$ ls -la /Users/User/repo/codemie-ai/codemie-code/specs" in turn.work
    assert "! File does not exist." in turn.work.splitlines()  # the sub-agent's failed Read
    assert "I'll analyze the existing CLI command structure" not in turn.answered
    assert turn.answered == alone.answered


def test_codexs_work_commands_patches_and_failed_execs() -> None:
    summary = work_of("codex", "codex/codemie-exec-repo-summary.jsonl").splitlines()
    assert summary == ["$ ls", "$ rg --files -g 'AGENTS.md'", "$ sed -n '1,160p' README.md"]
    work = work_of("codex", "codex/codemie-tui-compact-threshold.jsonl", 1).splitlines()
    assert "~ src/agents/plugins/__tests__/codemie-code-reasoning.test.ts" in work
    assert "+         threshold: 0.9," in work  # an apply_patch's added line
    # exit 2, reported both by the write_stdin output and by exec_command_end: once.
    failure = "! rg: node_modules/opencode-ai: No such file or directory (os error 2)"
    assert work.count(failure) == 1
    # The failing test run: its end event's output, not the write_stdin poll that saw it end.
    assert work.count("! > @codemieai/code@0.0.51 test") == 1
    assert work.count("! exit code 1") == 2  # two `rg` runs that found nothing


def test_aiders_work_commands_replace_lines_and_errors() -> None:
    afi = FORMATS["aider"].read(CORPUS / "aider/afi-core.aider.chat.history.md").turns
    scripts = next(turn for turn in afi if turn.asked == "sync-afi\naider-afi")
    assert edits(scripts.work)[0] == Edit(
        "sync-afi.sh",
        (
            "#!/bin/bash",
            "# Script to sync AFI repositories",
            'echo "Syncing AFI repositories..."',
            "# Add your sync logic here",
        ),
    )
    assert "$ chmod +x sync-afi.sh aider-afi.sh" in scripts.work.splitlines()
    assert any("! # 1 SEARCH/REPLACE block failed to match!" in turn.work for turn in afi)
    mono = FORMATS["aider"].read(CORPUS / "aider/monochromatic.aider.chat.history.md").turns
    assert any(
        line.startswith("! litellm.RateLimitError: ")
        for turn in mono
        for line in turn.work.splitlines()
    )
    # Windows paths of the diff-fenced blocks come out with `/`.
    assert any(e.path.startswith("packages/module/es/src/") for t in mono for e in edits(t.work))


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_a_reimport_gives_identical_turns(fmt: str, tmp_path: Path) -> None:
    for path in corpus_files(fmt):
        assert FORMATS[fmt].read(path) == FORMATS[fmt].read(path)
    index = HistoryIndex.open(tmp_path / "h.db")
    first = import_transcripts(index, [FORMATS[fmt]], CORPUS / fmt)
    again = import_transcripts(index, [FORMATS[fmt]], CORPUS / fmt)
    assert (again.new, again.updated, again.unchanged) == (0, 0, first.new)
    index.close()


# A Claude Code transcript written here, for the bounds and the hook.


def assistant(n: int, *blocks: dict[str, Any], session: str = "s-whole") -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": f"a{n}-{len(json.dumps(blocks))}",
        "sessionId": session,
        "message": {"id": f"m{n}", "role": "assistant", "content": list(blocks)},
    }


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": command[:8], "name": "Bash", "input": {"command": command}}


def test_a_200_kb_answer_keeps_its_first_and_last_text_whole_and_says_where_it_cut(
    tmp_path: Path,
) -> None:
    first, last = "Plan: move the cart to Redis. " * 100, "Done: the cart lives in Redis now."
    middle = [text(f"step {n} " + "x" * 2_000) for n in range(100)]  # 200 KB between them
    path = write(
        tmp_path / "s.jsonl",
        [prompt(1, "speed up the cart", "s-whole"), assistant(1, text(first), *middle, text(last))],
    )
    (turn,) = FORMATS["claude-code"].read(path).turns
    assert len(turn.answered) <= MAX_TEXT_CHARS
    assert turn.answered.startswith(first.strip() + "\n\nstep 0 ")
    assert turn.answered.endswith("\n\n" + last)
    left_out = re.search(r"\[… ([\d,]+) characters of the answer left out here …\]", turn.answered)
    assert left_out is not None
    whole = len("\n\n".join([first.strip(), *(block["text"] for block in middle), last]))
    shown = len(turn.answered) - len(left_out.group(0)) - 4
    assert int(left_out.group(1).replace(",", "")) == whole - shown


def test_a_work_log_past_its_bound_says_how_many_entries_were_left_out(tmp_path: Path) -> None:
    commands = [bash(f"pytest -q tests/test_{n}.py " + "-k long " * 20) for n in range(400)]
    path = write(
        tmp_path / "s.jsonl", [prompt(1, "run every test", "s-whole"), assistant(1, *commands)]
    )
    (turn,) = FORMATS["claude-code"].read(path).turns
    work = turn.work.splitlines()
    assert len(turn.work) <= WORK_CHARS + 100
    assert work[0].startswith("$ pytest -q tests/test_0.py -k long")
    kept = sum(line.startswith("$ ") for line in work)
    assert work[-1] == f"[… {400 - kept} more entries left out]"


def test_claude_codes_other_edit_tools_and_an_interrupted_command(tmp_path: Path) -> None:
    multi = {
        "file_path": "/home/dev/shop/a.py",
        "edits": [{"new_string": "x = 1"}, {"new_string": "y = 2\nz = 3"}],
    }
    notebook = {"notebook_path": "/home/dev/shop/n.ipynb", "new_source": "print('cell')"}
    calls = [
        {"type": "tool_use", "id": "t1", "name": "MultiEdit", "input": multi},
        {"type": "tool_use", "id": "t2", "name": "NotebookEdit", "input": notebook},
        bash("sleep 600"),
    ]
    stopped = {
        "type": "user",
        "uuid": "r1",
        "sessionId": "s-whole",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "sleep 60",
                    "content": "[Request interrupted by user]",
                }
            ],
        },
        "toolUseResult": {"stdout": "", "stderr": "", "interrupted": True},
    }
    refused = {
        **stopped,
        "uuid": "r2",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "is_error": True,
                    "content": [
                        {"type": "text", "text": "<tool_use_error>No such file</tool_use_error>"}
                    ],
                }
            ],
        },
        "toolUseResult": "Error: No such file",
    }
    path = write(
        tmp_path / "s.jsonl", [prompt(1, "edit", "s-whole"), assistant(1, *calls), stopped, refused]
    )
    (turn,) = FORMATS["claude-code"].read(path).turns
    assert turn.work.splitlines() == [
        "~ a.py",
        "+ x = 1",
        "+ y = 2",
        "+ z = 3",
        "~ n.ipynb",
        "+ print('cell')",
        "$ sleep 600",
        "! Interrupted",
        "! No such file",
    ]
    assert turn.edited == ("a.py", "n.ipynb")


def rollout(*records: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    meta = ("session_meta", {"id": "cx-w", "cwd": "/home/dev/svc"})
    return [
        {"timestamp": "2026-04-01T12:00:00Z", "type": kind, "payload": payload}
        for kind, payload in [meta, *records]
    ]


def test_codexs_failures_from_older_outputs_and_texts_said_again(tmp_path: Path) -> None:
    said = [{"type": "output_text", "text": "Done."}]
    lines = rollout(
        ("event_msg", {"type": "user_message", "message": "run the tests"}),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]}),
            },
        ),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps(
                    {
                        "output": "FAILED test_cart.py::test_total\n1 failed",
                        "metadata": {"exit_code": 1},
                    }
                ),
            },
        ),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nno such file",
            },
        ),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c3",
                "output": "Process exited with code 0\nOutput:\nfine",
            },
        ),
        ("response_item", {"type": "message", "role": "assistant", "content": said}),
        ("event_msg", {"type": "agent_message", "message": "Done."}),
        ("response_item", {"type": "message", "role": "assistant", "content": said}),
        ("event_msg", {"type": "agent_message", "message": "Done."}),
    )
    path = write(tmp_path / "rollout.jsonl", lines)
    (turn,) = FORMATS["codex"].read(path).turns
    assert turn.work.splitlines() == [
        "$ pytest -q",
        "! FAILED test_cart.py::test_total",
        "! 1 failed",
        "! no such file",
    ]
    assert turn.answered == "Done.\n\nDone."  # said twice, each arriving twice


def hook(path: Path, message: str) -> str:
    return json.dumps(
        {
            "session_id": "s-whole",
            "cwd": "/home/dev/shop",
            "hook_event_name": "Stop",
            "transcript_path": str(path),
            "last_assistant_message": message,
        }
    )


def answer_of(index: HistoryIndex, turn_id: str) -> str:
    hits = index.search("cart redis plan done", project="/home/dev/shop", k=10)
    return next(hit.answered for hit in hits if hit.turn_id == turn_id)


def test_the_hook_keeps_the_transcripts_answer_and_a_later_import_agrees(
    index: HistoryIndex, tmp_path: Path
) -> None:
    opening = assistant(1, text("Plan: move the cart to Redis."), bash("redis-cli ping"))
    path = write(tmp_path / "s.jsonl", [prompt(1, "speed up the cart", "s-whole"), opening])
    # Stop fired before the transcript holds the last message: the payload's is appended.
    summary = import_hook(index, hook(path, "Done: the cart lives in Redis."))
    assert summary is not None and summary.new == 1
    hooked = answer_of(index, "claude-code:s-whole:u1")
    assert hooked == "Plan: move the cart to Redis.\n\nDone: the cart lives in Redis."
    write(path, [assistant(1, text("Done: the cart lives in Redis."))])
    again = import_transcripts(index, [FORMATS["claude-code"]], path)
    assert (again.new, again.updated, again.unchanged) == (0, 0, 1)
    assert answer_of(index, "claude-code:s-whole:u1") == hooked
    (read,) = FORMATS["claude-code"].read(path).turns
    assert read.answered == hooked
    # The transcript already has it: the hook adds nothing, and agrees with the import.
    summary = import_hook(index, hook(path, "Done: the cart lives in Redis."))
    assert summary is not None and summary.unchanged == 1
    assert answer_of(index, "claude-code:s-whole:u1") == hooked


def test_a_hook_for_another_session_leaves_the_answer_alone(
    index: HistoryIndex, tmp_path: Path
) -> None:
    path = write(
        tmp_path / "s.jsonl",
        [prompt(1, "cart plan", "s-whole"), assistant(1, text("Plan: redis."))],
    )
    payload = json.loads(hook(path, "Done: other words."))
    import_hook(index, json.dumps({**payload, "session_id": "someone-else"}))
    assert answer_of(index, "claude-code:s-whole:u1") == "Plan: redis."


# whole.py on its own


def test_join_answers_keeps_every_text_in_order() -> None:
    assert join_answers(["  First.  ", "", "   ", "Second.\n", "Third."]) == (
        "First.\n\nSecond.\n\nThird."
    )
    assert join_answers([]) == ""
    cut = join_answers(["A" * 50, "b" * 100, "c" * 100, "Z" * 50], limit=250)
    assert cut.startswith("A" * 50 + "\n\n" + "b") and cut.endswith("\n\n" + "Z" * 50)
    assert "characters of the answer left out here" in cut and len(cut) <= 250


@given(st.lists(st.text(max_size=3_000), max_size=12), st.integers(200, 5_000))
def test_join_answers_stays_within_its_bound(texts: list[str], limit: int) -> None:
    joined = join_answers(texts, limit=limit)
    assert len(joined) <= limit
    kept = [t.strip() for t in texts if t.strip()]
    if len("\n\n".join(kept)) <= limit:
        assert joined == "\n\n".join(kept)
    elif len(kept) > 1 and len(kept[0]) < limit // 4 and len(kept[-1]) < limit // 4:
        assert joined.startswith(kept[0]) and joined.endswith(kept[-1])


def test_patch_changes_read_codex_patches_and_unified_diffs() -> None:
    codex = (
        "*** Begin Patch\n*** Add File: src/new.py\n+x = 1\n+y = 2\n"
        "*** Update File: src/old.py\n*** Move to: src/renamed.py\n@@\n-a\n+b\n"
        "*** Delete File: src/gone.py\n*** End Patch\n"
    )
    assert patch_changes(codex) == [
        ("src/new.py", ["x = 1", "y = 2"], []),
        ("src/renamed.py", ["b"], ["a"]),
    ]
    unified = (
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\t2026-01-01\n@@ -1 +1,2 @@\n"
        " keep\n-old\n+new\n+++more\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    )
    assert patch_changes(unified) == [("app.py", ["new"], ["old"])]


def test_edits_read_back_what_the_work_log_wrote() -> None:
    log = WorkLog()
    log.ran("pytest -q")
    log.edit("src/a.py", "def a():\n\n    return 1\n")
    log.failed("Traceback (most recent call last):\n  boom\n")
    log.edit("src/b.py", [f"line {n}" for n in range(EDIT_LINES + 5)])
    log.edit("empty.txt")
    log.edit("src/c.py", "    return 2\n", removed="    return 1\n\n- not a marker\n")
    found = edits(log.text())
    assert found[0] == Edit("src/a.py", ("def a():", "    return 1"))
    assert found[1].path == "src/b.py" and len(found[1].added) == EDIT_LINES + 1
    assert found[1].added[-1] == "[… 5 more lines]"
    assert found[2] == Edit("empty.txt", ())
    assert found[3] == Edit("src/c.py", ("    return 2",), ("    return 1", "- not a marker"))
    assert len(found) == 4


def test_a_failure_reported_twice_in_a_row_is_logged_once() -> None:
    log = WorkLog()
    log.failed("exit code 1")
    log.failed("exit code 1")
    log.ran("rg x")
    log.failed("exit code 1")
    assert log.text() == "! exit code 1\n$ rg x\n! exit code 1"

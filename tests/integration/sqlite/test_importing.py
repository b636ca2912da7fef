"""Importing transcripts into the index: every format lands and is found, imports are
incremental, forgotten stays forgotten, and bad lines or bad files never stop an import."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from history import HistoryIndex
from history.importers import FORMATS, ImportedTurn, ReadReport
from history.importers import run as importing_module
from history.importers.claude_code import ClaudeCode
from history.importers.run import import_hook, import_transcripts
from tests.helpers.corpus import CORPUS
from tests.helpers.importing import (
    FIXTURES,
    SESSION,
    counts,
    hook_input,
    prompt,
    stored,
    write,
)

CLAUDE = FORMATS["claude-code"]
ALL = list(FORMATS.values())


def corpus_turns() -> Iterator[ImportedTurn]:
    for fmt in ALL:
        for path in fmt.discover(CORPUS / fmt.name):
            yield from fmt.read(path).turns


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("claude-code", "claude_edge.jsonl"),
        ("claude-code", "claude_subagents/sess-1.jsonl"),
        ("codex", "codex_edge.jsonl"),
        ("aider", "edge.aider.chat.history.md"),
    ],
)
def test_each_formats_turns_land_in_the_index_and_are_found(
    index: HistoryIndex, fmt: str, name: str
) -> None:
    expected = FORMATS[fmt].read(FIXTURES / name)
    summary = import_transcripts(index, [FORMATS[fmt]], FIXTURES / name)
    assert (summary.files, summary.new, summary.lines) == (1, len(expected.turns), expected.lines)
    assert summary.skipped == expected.skipped and summary.problems == expected.problems
    assert all(stored(index, turn) for turn in expected.turns)


def test_auto_on_one_folder_reads_each_file_once_with_its_own_format(index: HistoryIndex) -> None:
    summary = import_transcripts(index, ALL, FIXTURES)
    # 4 transcripts of Claude Code, Codex and Aider, 2 of Gemini CLI, 1 of Qwen Code and 1
    # OpenCode session; sub-agent files (Claude Code's, Gemini CLI's, OpenCode's child session)
    # are read only through their parents. And one session each of Cline, Roo Code, Copilot
    # CLI, Copilot Chat, Continue, Goose and Cursor (14 turns), none read as another agent's.
    assert (summary.files, summary.sessions, summary.new, summary.skipped) == (15, 16, 36, 8)
    assert index.count() == 36


def test_the_whole_corpus_lands_and_a_reimport_is_a_noop(index: HistoryIndex) -> None:
    first = import_transcripts(index, ALL, CORPUS)
    assert (first.files, first.unreadable, first.skipped, first.problems) == (14, 0, 0, [])
    assert counts(first) == (88, 0, 0, 0, 0) and index.count() == 88
    assert all(stored(index, turn) for turn in corpus_turns())
    [hit] = index.search("multiply_numbers", project="/tmp/tmpw6sk2trg")
    assert "src/math_utils.py" in hit.edited and {"Edit", "Bash"} <= set(hit.tools)
    again = import_transcripts(index, ALL, CORPUS)
    assert counts(again) == (0, 0, 88, 0, 0) and index.count() == 88


def test_a_reimport_is_a_noop_and_a_grown_file_adds_only_its_new_turns(
    index: HistoryIndex, tmp_path: Path
) -> None:
    path = write(tmp_path / "s-grow.jsonl", SESSION[:4])
    assert counts(import_transcripts(index, [CLAUDE], path)) == (2, 0, 0, 0, 0)
    assert counts(import_transcripts(index, [CLAUDE], path)) == (0, 0, 2, 0, 0)
    write(path, SESSION[4:])
    assert counts(import_transcripts(index, [CLAUDE], path)) == (1, 0, 2, 0, 0)
    [hit] = index.search("checkout button", project="/home/dev/shop")
    assert hit.edited == ("web/checkout.html",) and index.count() == 3


def test_a_forgotten_session_stays_forgotten_unless_asked(
    index: HistoryIndex, tmp_path: Path
) -> None:
    path = write(tmp_path / "s-grow.jsonl", SESSION)
    import_transcripts(index, [CLAUDE], path)
    assert index.forget_session("s-grow") == 3
    assert counts(import_transcripts(index, [CLAUDE], path)) == (0, 0, 0, 3, 0)
    assert index.count() == 0 and not index.search("login hashing", project=None)
    back = import_transcripts(index, [CLAUDE], path, include_forgotten=True)
    assert counts(back) == (3, 0, 0, 0, 0) and index.search("login hashing", project=None)
    assert counts(import_transcripts(index, [CLAUDE], path)) == (0, 0, 3, 0, 0)


def test_garbage_lines_are_skipped_and_the_good_turns_imported(
    index: HistoryIndex, tmp_path: Path
) -> None:
    garbage = ["{not json", "[1, 2]", json.dumps({"type": "mystery", "text": "secret words"})]
    path = write(tmp_path / "s-grow.jsonl", [*SESSION[:2], *garbage, *SESSION[2:]])
    summary = import_transcripts(index, [CLAUDE], path)
    assert (summary.new, summary.skipped, summary.lines) == (3, 3, 9)
    assert len(summary.problems) == 2 and not any("secret" in p for p in summary.problems)
    assert "3 skipped" in summary.sentence()


class Flaky(ClaudeCode):
    """Claude Code, but one file is a folder and another crashes the reader."""

    def discover(self, root: Path) -> Iterator[Path]:
        yield from sorted(root.iterdir())

    def read(self, path: Path) -> ReadReport:
        if path.name.startswith("crash"):
            raise RuntimeError("the transcript said: secret words")
        return super().read(path)


def test_unreadable_and_crashing_files_are_counted_and_the_rest_imported(
    index: HistoryIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importing_module, "BATCH_TURNS", 1)  # the first file is recorded first
    (folder := tmp_path / "t").mkdir()
    write(folder / "a.jsonl", SESSION[:2])
    (folder / "b-folder.jsonl").mkdir()
    shutil.copy(folder / "a.jsonl", folder / "crash.jsonl")
    write(folder / "d.jsonl", [prompt(4, "Why is the build slow?", session="s-other")])
    summary = import_transcripts(index, [Flaky()], folder)
    assert (summary.files, summary.unreadable, summary.new, index.count()) == (2, 2, 2, 2)
    assert "2 files unreadable" in summary.sentence()
    assert not any("secret" in problem for problem in summary.problems)


def test_turns_are_recorded_in_bounded_batches(
    index: HistoryIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder := tmp_path / "t").mkdir()
    for n in range(5):
        write(folder / f"{n}.jsonl", [{**line, "sessionId": f"s{n}"} for line in SESSION])
    sizes: list[int] = []
    record_many = index.record_many
    monkeypatch.setattr(importing_module, "BATCH_TURNS", 4)

    def counted(turns: Sequence[ImportedTurn], *rest: Any) -> Any:
        sizes.append(len(turns))
        return record_many(turns, *rest)

    monkeypatch.setattr(index, "record_many", counted)
    assert import_transcripts(index, [CLAUDE], folder).new == 15
    assert sizes == [6, 6, 3]  # never more than a batch plus one file's turns


def test_the_hook_imports_its_transcript_and_takes_stops_last_answer(
    index: HistoryIndex, tmp_path: Path
) -> None:
    path = write(tmp_path / "s-grow.jsonl", [*SESSION, prompt(4, "Speed up the cart page")])
    summary = import_hook(index, hook_input(path, last_assistant_message="Cached the cart."))
    assert summary is not None and (summary.files, summary.new) == (1, 4)
    [hit] = index.search("speed cart page", project="/home/dev/shop", k=1)
    assert hit.answered == "Cached the cart."


@pytest.mark.parametrize("text", ["", "{oops", "[]", '{"cwd": "/x"}', hook_input("/nowhere.jsonl")])
def test_bad_hook_input_imports_nothing_and_logs(
    index: HistoryIndex, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="history.importers.run"):
        assert import_hook(index, text) is None
    assert caplog.records and index.count() == 0


def test_summary_as_dict_and_sentence_for_nothing_found(tmp_path: Path) -> None:
    empty = import_transcripts(HistoryIndex.open(tmp_path / "h.db"), [CLAUDE], tmp_path / "none")
    assert empty.sentence() == f"No transcripts found in {tmp_path / 'none'}."
    assert empty.as_dict() == {
        "files": 0,
        "unreadable_files": 0,
        "sessions": 0,
        "turns": {"new": 0, "updated": 0, "unchanged": 0, "forgotten": 0, "failed": 0},
        "lines": 0,
        "skipped_lines": 0,
        "other_format_files": 0,
        "problems": [],
        "roots": [str(tmp_path / "none")],
    }


def test_a_long_import_shows_a_transient_bar_on_stderr_only(
    index: HistoryIndex,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import rich.console

    terminal = rich.console.Console
    monkeypatch.setattr(rich.console, "Console", lambda **kw: terminal(force_terminal=True, **kw))
    (folder := tmp_path / "t").mkdir()
    for n in range(importing_module.PROGRESS_FILES + 1):
        write(folder / f"{n}.jsonl", [{**line, "sessionId": f"s{n}"} for line in SESSION[:2]])
    assert import_transcripts(index, [CLAUDE], folder, progress=True).new == 21
    out, err = capsys.readouterr()
    assert out == "" and "import" in err
    assert import_transcripts(index, [CLAUDE], folder, progress=False).unchanged == 21
    assert capsys.readouterr() == ("", "")

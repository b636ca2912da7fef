"""The sessions of Cline, Roo Code, Copilot CLI, Copilot Chat, Continue, Goose and Cursor through
the import run: found in the index, a re-import changes nothing, a grown session adds only its
new turns, a forgotten one stays forgotten."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from history import HistoryIndex
from history.importers import FORMATS
from history.importers.run import import_transcripts
from tests.helpers.importing import SINGLE_FILES, copy_beside, counts, operation_log, stored

CURSOR_CHAT = "e1d2c3b4-a5f6-4789-8abc-def012345678"
CHAT_CREATED_MS = 1764990000000


def cursor_store(home: Path, chat: str = CURSOR_CHAT) -> None:
    """The chat's store.db as the Cursor agent keeps it: meta values are hex-encoded JSON."""
    folder = home / ".cursor" / "chats" / "9f8e7d" / chat
    folder.mkdir(parents=True)
    meta = json.dumps({"agentId": chat, "name": "Shipping", "createdAt": CHAT_CREATED_MS})
    with sqlite3.connect(folder / "store.db") as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
        db.execute("INSERT INTO meta VALUES ('0', ?)", (meta.encode().hex(),))
    db.close()


def staged(fmt: str, source: Path, tmp_path: Path) -> Path:
    """A copy of the fixture session to import from (and to grow)."""
    if fmt == "cursor":
        home = tmp_path / "home"
        transcripts = home / ".cursor/projects/home-dev-shop/agent-transcripts"
        transcripts.mkdir(parents=True)
        cursor_store(home)
        return Path(shutil.copy(source, transcripts / source.name))
    return copy_beside(source, tmp_path)


def shrink_json(path: Path, key: str | None, keep: int) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    if key is None:
        document = document[:keep]
    else:
        document[key] = document[key][:keep]
    path.write_text(json.dumps(document), encoding="utf-8")


def shrink_lines(path: Path, last_prompt: str) -> None:
    """The file as it was before its last prompt was written."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = max(n for n, line in enumerate(lines) if last_prompt in line)
    path.write_text("".join(lines[:cut]), encoding="utf-8")


EARLIER: dict[str, Callable[[Path, str], None]] = {
    "cline": lambda path, _: shrink_json(path, None, 10),
    "copilot-chat": lambda path, _: shrink_json(path, "requests", 2),
    "continue": lambda path, _: shrink_json(path, "history", 7),
    "copilot-cli": shrink_lines,
    "goose": shrink_lines,
    "cursor": shrink_lines,
}


@pytest.mark.parametrize(("fmt", "source"), SINGLE_FILES)
def test_each_session_lands_and_a_reimport_changes_nothing(
    index: HistoryIndex, fmt: str, source: Path, tmp_path: Path
) -> None:
    path = staged(fmt, source, tmp_path)
    expected = FORMATS[fmt].read(path)
    summary = import_transcripts(index, [FORMATS[fmt]], path)
    assert (summary.files, summary.new, summary.problems) == (1, len(expected.turns), [])
    assert all(stored(index, turn) for turn in expected.turns)
    again = import_transcripts(index, [FORMATS[fmt]], path)
    assert counts(again) == (0, 0, len(expected.turns), 0, 0)


@pytest.mark.parametrize(("fmt", "source"), [(f, s) for f, s in SINGLE_FILES if f in EARLIER])
def test_a_grown_session_adds_only_its_new_turns(
    index: HistoryIndex, fmt: str, source: Path, tmp_path: Path
) -> None:
    path = staged(fmt, source, tmp_path)
    whole = FORMATS[fmt].read(path).turns
    grown = path.read_bytes()
    EARLIER[fmt](path, whole[-1].asked.splitlines()[0])
    first = import_transcripts(index, [FORMATS[fmt]], path)
    assert counts(first) == (len(whole) - 1, 0, 0, 0, 0)
    time.sleep(0.01)  # a later modification time, as a growing file has
    path.write_bytes(grown)
    assert counts(import_transcripts(index, [FORMATS[fmt]], path)) == (1, 0, len(whole) - 1, 0, 0)
    assert index.count() == len(whole) and stored(index, whole[-1])


@pytest.mark.parametrize(("fmt", "source"), SINGLE_FILES)
def test_a_forgotten_session_stays_forgotten(
    index: HistoryIndex, fmt: str, source: Path, tmp_path: Path
) -> None:
    path = staged(fmt, source, tmp_path)
    turns = FORMATS[fmt].read(path).turns
    import_transcripts(index, [FORMATS[fmt]], path)
    assert index.forget_session(turns[0].session_id) == len(turns)
    assert counts(import_transcripts(index, [FORMATS[fmt]], path)) == (0, 0, 0, len(turns), 0)
    assert index.count() == 0
    back = import_transcripts(index, [FORMATS[fmt]], path, include_forgotten=True)
    assert counts(back) == (len(turns), 0, 0, 0, 0)


def test_a_cursor_transcript_takes_the_time_its_chat_began(tmp_path: Path) -> None:
    path = staged("cursor", dict(SINGLE_FILES)["cursor"], tmp_path)
    times = {turn.asked_at.timestamp() for turn in FORMATS["cursor"].read(path).turns}
    assert times == {CHAT_CREATED_MS / 1000}


def test_a_copilot_chat_operation_log_that_grows_adds_only_its_new_turns(
    index: HistoryIndex, tmp_path: Path
) -> None:
    source = dict(SINGLE_FILES)["copilot-chat"]
    log = tmp_path / "h" / "chatSessions" / f"{source.stem}.jsonl"
    log.parent.mkdir(parents=True)
    lines = [json.dumps(line) + "\n" for line in operation_log(json.loads(source.read_text()))]
    log.write_text("".join(lines[:-2]), encoding="utf-8")
    chat = [FORMATS["copilot-chat"]]
    assert counts(import_transcripts(index, chat, log)) == (2, 0, 0, 0, 0)
    log.write_text("".join(lines), encoding="utf-8")
    assert counts(import_transcripts(index, chat, log)) == (1, 0, 2, 0, 0)
    hits = {hit.turn_id: hit for hit in index.search("tax authority rounding", project="~")}
    rounding = hits[f"copilot-chat:{source.stem}:2"]
    assert rounding.tainted and rounding.project == str(Path.home())  # an empty window's chat


def test_auto_on_a_mixed_folder_reads_each_jsonl_file_as_the_agent_that_wrote_it(
    index: HistoryIndex, tmp_path: Path
) -> None:
    files = dict(SINGLE_FILES)
    mixed = tmp_path / "mixed"
    placed: list[tuple[str, Path]] = []
    for fmt, folder in (
        ("copilot-cli", "session-state/5d2c"),
        ("goose", "goose/sessions"),
        ("cursor", "home-dev-shop/agent-transcripts"),
    ):
        (mixed / folder).mkdir(parents=True)
        placed.append((fmt, Path(shutil.copy(files[fmt], mixed / folder / files[fmt].name))))
    (chat := mixed / "h" / "chatSessions").mkdir(parents=True)
    log = operation_log(json.loads(files["copilot-chat"].read_text()))
    (chat / "s.jsonl").write_text("".join(json.dumps(line) + "\n" for line in log))
    placed.append(("copilot-chat", chat / "s.jsonl"))
    summary = import_transcripts(index, list(FORMATS.values()), mixed)
    assert (summary.files, summary.new, summary.skipped, summary.problems) == (4, 9, 0, [])
    for fmt, path in placed:  # each file's turns, as its own agent's reader gives them
        assert all(stored(index, turn) for turn in FORMATS[fmt].read(path).turns)

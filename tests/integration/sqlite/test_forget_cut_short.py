"""A forget killed mid-way: the counts leave out the turns it still hides, and whichever process
opens the index next finishes the scrub once it is idle, a process that only searches included
(one that may only read the file says it cannot and leaves it owed)."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.store.sqlite import opening
from tests.helpers.forgetting import file_bytes
from tests.helpers.templates import filled_copy

PROJECT, KEPT = "/work/doomed", "/work/kept"
DOOMED_TURNS = 5_000
CANARY = "quokkacanaryzh"  # each turn's own canary ends in its number


def python(code: str, home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, "RECALL_HOME": str(home)},
        stdout=subprocess.PIPE,
        text=True,
    )


def fill(path: Path) -> None:
    """5,020 turns recorded, tidied and closed: written once, copied for each test."""
    filled_copy(path, __name__, _fill)


def _fill(path: Path) -> None:
    from datetime import UTC, datetime

    from history.importers.base import ImportedTurn

    index = HistoryIndex.open(path)
    turns = [
        ImportedTurn(
            turn_id=f"d-{n}",
            session_id=f"s-{n % 50}",
            project=PROJECT,
            asked=f"parser {CANARY}{n:05d} question",
            answered="answer " * 20,
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=datetime.now(UTC),
        )
        for n in range(DOOMED_TURNS)
    ]
    turns += [
        ImportedTurn(
            turn_id=f"k-{n}",
            session_id=f"k-{n}",
            project=KEPT,
            asked=f"parser kept {n}",
            answered="fine",
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=datetime.now(UTC),
        )
        for n in range(20)
    ]
    assert index.record_many(turns).new == DOOMED_TURNS + 20
    index.tidy()
    index.close()


def kill_mid_forget(home: Path, forget: str = f"index.forget_project({PROJECT!r})") -> None:
    forgetting = python(
        f"""
        from history import history_for
        index = history_for()
        print("forgetting", flush=True)
        {forget}
        print("done", flush=True)
        """,
        home,
    )
    assert forgetting.stdout is not None
    assert forgetting.stdout.readline().strip() == "forgetting"
    # Killed once its conversations are listed as owed (0.2 s in, on an idle machine), while it
    # deletes their turns in batches.
    deadline = time.monotonic() + 30
    with sqlite3.connect(home / "history.db", timeout=30) as conn:
        while not conn.execute("SELECT count(*) FROM forget_work").fetchone()[0]:
            assert forgetting.poll() is None, "the forget finished before it could be killed"
            assert time.monotonic() < deadline, "the forget never got going"
            time.sleep(0.005)
    time.sleep(0.05)
    assert forgetting.poll() is None, "the forget finished before it could be killed"
    forgetting.send_signal(signal.SIGKILL)
    forgetting.wait(10)


def stored_canaries(home: Path) -> int:
    raw = file_bytes(home)
    return sum(f"{CANARY}{n:05d}".encode() in raw for n in range(DOOMED_TURNS))


def test_counts_leave_out_the_turns_a_killed_forget_still_hides(tmp_path: Path) -> None:
    fill(tmp_path / "history.db")
    kill_mid_forget(tmp_path)

    reader = HistoryIndex.open(f"sqlite:///file:{tmp_path / 'history.db'}?mode=ro&uri=true")
    assert reader.purge_pending, "the killed forget left nothing owed"
    assert reader.count(PROJECT) == 0
    assert reader.count() == 20
    assert reader.count(KEPT) == 20
    assert not reader.search("parser", project=PROJECT)
    stats = reader.stats()
    assert (stats.turns, stats.per_project) == (20, {KEPT: 20})
    assert stats.sessions == 20
    with TestClient(create_app(reader)) as client:
        assert client.get("/healthz").json()["turns"] == 20
    reader.close()


def test_the_projects_list_leaves_out_the_conversations_a_killed_forget_still_hides(
    tmp_path: Path,
) -> None:
    fill(tmp_path / "history.db")
    # Every conversation of the project but the last (of 100 turns) is being forgotten.
    kill_mid_forget(tmp_path, "index.forget_sessions([f's-{n}' for n in range(49)])")

    reader = HistoryIndex.open(f"sqlite:///file:{tmp_path / 'history.db'}?mode=ro&uri=true")
    assert reader.purge_pending, "the killed forget left nothing owed"
    assert reader.count(PROJECT) == 100
    listed = {p.project: (p.turns, p.conversations) for p in reader.projects()}
    assert listed == {PROJECT: (100, 1), KEPT: (20, 20)}
    with TestClient(create_app(reader)) as client:
        shown = client.get("/api/code/projects").json()["projects"]
        assert {p["project"]: p["turns"] for p in shown} == {PROJECT: 100, KEPT: 20}
        assert client.get("/healthz").json()["turns"] == 120
    reader.close()


def test_a_process_that_only_searches_finishes_the_scrub(tmp_path: Path) -> None:
    fill(tmp_path / "history.db")
    kill_mid_forget(tmp_path)
    assert stored_canaries(tmp_path) > 0

    # Opened for searching only (as `recall mcp` is): it writes nothing of its own.
    searcher = python(
        f"""
        import time
        from history import history_for
        index = history_for()
        deadline = time.monotonic() + 120
        while index.purge_pending and time.monotonic() < deadline:
            assert index.search("parser", project={PROJECT!r}) == []
            time.sleep(0.2)
        print("scrubbed" if not index.purge_pending else "still owed", flush=True)
        index.close()
        """,
        tmp_path,
    )
    out, _ = searcher.communicate(timeout=180)
    assert out.strip() == "scrubbed"
    assert stored_canaries(tmp_path) == 0
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.count() == index.count(KEPT) == 20
    index.close()


def test_a_read_only_process_says_it_cannot_finish_the_scrub(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(tmp_path / "history.db")
    kill_mid_forget(tmp_path)
    # The tests run as root, whom a file's mode does not stop: the file is taken as one this
    # process may not write, as its mode would say to anyone else.
    monkeypatch.setattr(opening, "_writable", lambda path: False)
    with caplog.at_level(logging.WARNING, logger="history.index"):
        reader = HistoryIndex.open(tmp_path / "history.db")
    assert not reader.writable
    assert "this process may only read the file" in caplog.text
    time.sleep(1.5)  # a writable process would have started on it by now
    assert reader.purge_pending
    reader.close()
    assert stored_canaries(tmp_path) > 0

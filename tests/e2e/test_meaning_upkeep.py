"""The long-running processes embed the turns waiting for search by meaning in the background:
`recall mcp` and `recall watch` as `recall serve` does (history/meaning/background.py), with the
fake model (HashedWords) put in the packaged one's place, so no extra is needed beyond numpy."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

from bench.startup import INITIALIZE
from history import HistoryIndex

# The process as the user starts it, with the fake model instead of the packaged one.
FAKE_MODEL = """
import sys
import history.meaning, history.meaning.embedder as embedder, history.meaning.search as search
history.meaning.installed = lambda: True
search.default_embedder = embedder.HashedWords
search.default_model_id = lambda: embedder.HashedWords.model_id
from history.cli import main
sys.exit(main(sys.argv[1:]))
"""

ROOT = str(Path(__file__).resolve().parents[2])


def recorded(home: Path, turns: int = 12) -> Path:
    index = HistoryIndex.open(home / "history.db")
    for n in range(turns):
        index.record(
            turn_id=f"t{n}",
            session_id=f"s{n % 3}",
            project="/work/app",
            asked=f"question {n}",
            answered="answer",
        )
    index.close()
    return home / "history.db"


def vectors(path: Path) -> int:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM turn_vectors").fetchone()[0])


def started(home: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "RECALL_HOME": str(home), "PYTHONPATH": ROOT}
    return subprocess.Popen(
        [sys.executable, "-c", FAKE_MODEL, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def embedded(path: Path, turns: int, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if vectors(path) == turns:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.timing_sensitive
def test_the_mcp_server_embeds_the_waiting_turns_in_the_background(tmp_path: Path) -> None:
    path = recorded(tmp_path)
    server = started(tmp_path, "mcp")
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1  # it is serving
        assert embedded(path, 12), "no turn embedded while the server ran"
        server.stdin.close()
        assert server.wait(timeout=10) == 0
    finally:
        server.kill()


@pytest.mark.timing_sensitive
def test_recall_watch_embeds_the_waiting_turns_in_the_background(tmp_path: Path) -> None:
    path = recorded(tmp_path)
    watched = tmp_path / "sessions"
    watched.mkdir()
    watcher = started(tmp_path, "watch", str(watched), "--quiet")
    try:
        assert embedded(path, 12), "no turn embedded while recall watch ran"
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)

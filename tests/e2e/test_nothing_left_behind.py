"""Nothing left behind: no `recall` command leaves a process running once it has exited, and a
hook killed while it writes leaves the history whole.

Each command runs as the leader of a new session; once it has exited, no process of that
session may remain (read from /proc: every process's session id). The upkeep thread a write
starts is daemonic and given a bounded last step at close (history/upkeep.py), so a command
that wrote still ends by itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.startup import INITIALIZE
from history import HistoryIndex
from history.importers.run import BATCH_TURNS
from history.store.sqlite.doctor import index_agrees, table_problems
from tests.helpers.engines import engine_of
from tests.helpers.serving import LISTENING

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def session_members(session: int) -> list[int]:
    """The processes whose session id is `session`."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after the command's name
        if int(fields[3]) == session:  # state, ppid, pgrp, session
            members.append(int(entry.name))
    return members


def recall(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "history.cli", *args],
        env={**os.environ, "RECALL_HOME": str(home)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def assert_nothing_left(leader: subprocess.Popen[str]) -> None:
    """Once `leader` has exited, no process of its session is running (a child it started may
    take a moment to go: it is given one second)."""
    assert leader.returncode is not None
    deadline = time.monotonic() + 1.0
    while (left := session_members(leader.pid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in left:  # leave nothing behind ourselves either
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes left running: {left}"


def claude_code_transcript(path: Path, turns: int, cwd: Path) -> str:
    """A Claude Code transcript of `turns` finished turns, and the Stop hook's payload."""
    lines = []
    for n in range(turns):
        at = f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z"
        lines.append(
            {
                "type": "user",
                "sessionId": "kept",
                "uuid": f"u{n}",
                "cwd": str(cwd),
                "timestamp": at,
                "message": {"role": "user", "content": f"login step {n} " + "words " * 200},
            }
        )
        lines.append(
            {
                "type": "assistant",
                "sessionId": "kept",
                "uuid": f"a{n}",
                "timestamp": at,
                "message": {"id": f"m{n}", "content": [{"type": "text", "text": "done " * 300}]},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return json.dumps({"transcript_path": str(path), "hook_event_name": "Stop"})


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    index = HistoryIndex.open(home / "history.db")
    for n in range(3):
        index.record(
            turn_id=f"t{n}",
            session_id=f"s{n}",
            project=str(home),
            asked=f"how should login {n} hash passwords",
            answered="with argon2id",
            files=["src/login.py"],
            asked_at=datetime.now(UTC),
        )
    index.close()
    return home


COMMANDS = [
    ("--version",),
    ("search", "login", "--everywhere"),
    ("show", "t1"),
    ("sessions",),
    ("projects",),
    ("stats",),
    ("doctor", "--check-only"),
    ("migrate",),
    ("blame", "src/login.py"),
    ("retain", "--set", "400d", "--yes"),
    ("forget", "--session", "s2", "--yes"),
    ("import", "claude-code", "missing.jsonl"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args))
def test_a_command_leaves_no_process_running(home: Path, args: tuple[str, ...]) -> None:
    command = recall(home, *args)
    command.communicate(timeout=60)
    assert_nothing_left(command)


def test_a_hook_that_wrote_leaves_no_process_running(home: Path, tmp_path: Path) -> None:
    hook = claude_code_transcript(tmp_path / "session.jsonl", 3, home)
    command = recall(home, "hook", "claude-code")
    command.communicate(hook, timeout=60)
    assert command.returncode == 0
    assert_nothing_left(command)


def test_the_mcp_server_leaves_no_process_when_its_client_goes(home: Path) -> None:
    server = recall(home, "mcp")
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(INITIALIZE) + "\n")
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1
    server.communicate(timeout=10)  # closes stdin: the client went
    assert_nothing_left(server)


def test_the_service_leaves_no_process_once_stopped(home: Path) -> None:
    server = recall(home, "serve", "--port", "0")
    assert server.stderr is not None
    deadline = time.monotonic() + 60
    for line in server.stderr:
        if LISTENING.search(line.rstrip()):
            break
        assert time.monotonic() < deadline, "recall serve did not start"
    else:
        pytest.fail("recall serve ended before it listened")
    server.send_signal(signal.SIGTERM)
    server.communicate(timeout=20)
    assert_nothing_left(server)


def test_a_hook_killed_while_it_writes_leaves_the_history_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    index = HistoryIndex.open(home / "history.db")
    index.record(turn_id="before", session_id="s", project="/p", asked="login", answered="ok")
    index.close()
    hook = claude_code_transcript(tmp_path / "session.jsonl", 1500, tmp_path)
    wal = home / "history.db-wal"
    start = wal.stat().st_size if wal.exists() else 0
    writer = recall(home, "hook", "claude-code")
    assert writer.stdin is not None
    writer.stdin.write(hook)
    writer.stdin.close()
    deadline = time.monotonic() + 120
    # Killed once its transaction has written to the log, before it commits.
    while not (wal.exists() and wal.stat().st_size > start + 1_000_000):
        assert writer.poll() is None, "the hook finished before it could be killed"
        assert time.monotonic() < deadline, "the hook never got going"
        time.sleep(0.01)
    writer.send_signal(signal.SIGKILL)
    writer.wait(10)

    index = HistoryIndex.open(home / "history.db")
    try:
        engine = engine_of(index)
        assert table_problems(engine) == [] and index_agrees(engine)
        # The hook writes in batches, each one transaction: whole batches, never a part of one
        # (on a loaded machine the kill can come after the last batch's commit).
        assert (index.count() - 1) % BATCH_TURNS == 0 and index.count() <= 1501
        assert sum(project.turns for project in index.projects()) == index.count()
        assert index.search("login", project="/p")[0].turn_id == "before"
    finally:
        index.close()
    again = recall(home, "hook", "claude-code")
    again.communicate(hook, timeout=120)
    reopened = HistoryIndex.open(home / "history.db")
    try:
        assert reopened.count() == 1501  # the next hook brings in the whole transcript
    finally:
        reopened.close()

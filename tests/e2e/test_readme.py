"""The README's commands, run as written, in a fresh home with transcripts and a turn to find.

Every fenced `sh` and `python` block runs, in the README's order, except a block right after a
`<!-- not run here: REASON -->` comment (the PostgreSQL examples need a server named in them).
`make test` and `make install` are CI's own steps (.ci/run); `make serve` runs here. The HTTP
table's curl lines run against the README's own `recall serve --port 8765`, moved to a free port
(the README's number in its lines is replaced by it, and `make serve` is given it as PORT).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.ports import free_port
from tests.helpers.readme import README, Block, blocks

FIXTURES = ROOT / "tests" / "fixtures" / "importers"
BIN = Path(sys.executable).parent
README_PORT = "8765"
RUN_BY_CI = {"make test", "make install"}  # .ci/run: `make test`, then `make smoke-wheel`


def commands(block: Block) -> list[str]:
    """The block's command lines without their comments (a `#` after two spaces)."""
    lines = (re.sub(r"\s{2,}#.*$", "", line).strip() for line in block.text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def curl_lines() -> list[str]:
    return re.findall(r"`(curl [^`]+)`", README)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A user's home: transcripts where each importer looks, a project folder to stand in."""
    home = tmp_path / "home"
    shop = home / "code" / "shop"
    shop.mkdir(parents=True)
    claude = home / ".claude" / "projects" / "-home-code-shop"
    shutil.copytree(FIXTURES / "claude_subagents", claude)
    shutil.copy(FIXTURES / "claude_edge.jsonl", claude)
    (home / ".codex" / "sessions" / "2026" / "11").mkdir(parents=True)
    shutil.copy(FIXTURES / "codex_edge.jsonl", home / ".codex/sessions/2026/11/rollout-a.jsonl")
    shutil.copy(FIXTURES / "edge.aider.chat.history.md", shop / ".aider.chat.history.md")
    shutil.copytree(FIXTURES, home / "backups" / "agents")
    return home


def environment(home: Path, port: str = README_PORT) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_")}
    path = f"{BIN}:{env['PATH']}"
    return {**env, "HOME": str(home), "PATH": path, "PAGER": "cat", "PORT": port}


def run(line: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line],
        cwd=cwd or home / "code" / "shop",
        env=environment(home),
        capture_output=True,
        text=True,
        timeout=120,
    )


def seed(home: Path) -> None:
    """The turns the terminal examples look for (the Python examples forget theirs): two
    conversations, so the project outlives forgetting one of them."""
    script = (
        "from history import history_for\n"
        "index = history_for()\n"
        "assert index.record(turn_id='t-42', session_id='conv-7', project='~/code/shop',"
        " asked='How should the login function hash passwords?',"
        " answered='argon2id through passlib; never md5.', files=['src/auth/login.py'],"
        " edited=['src/auth/login.py'])\n"
        "assert index.record(turn_id='t-41', session_id='conv-6', project='~/code/shop',"
        " asked='Add a login rate limit', answered='Five attempts a minute, in middleware.')\n"
        "index.close()\n"
    )
    done = run(f"{sys.executable} -c {shlex_quote(script)}", home)
    assert done.returncode == 0, done.stderr


def shlex_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


@pytest.fixture
def port() -> str:
    return str(free_port())


def started(line: str, home: Path, port: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    """A long-running command, once it says where it listens."""
    process = subprocess.Popen(
        ["bash", "-c", f"exec {line}"],
        cwd=cwd or home / "code" / "shop",
        env=environment(home, port),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 90
    said = []
    while time.monotonic() < deadline:
        said.append(process.stdout.readline())
        if "listening on" in said[-1]:
            return process
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"{line!r} did not start: {''.join(said)}")


def stop(process: subprocess.Popen[str]) -> int:
    os.killpg(process.pid, signal.SIGINT)
    return process.wait(timeout=30)


def answered(line: str, answer: str, home: Path) -> tuple[int, str]:
    """Run `line` on a terminal and type `answer` at its question."""
    parent, child = pty.openpty()
    process = subprocess.Popen(
        ["bash", "-c", line],
        cwd=home / "code" / "shop",
        env=environment(home),
        stdin=child,
        stdout=child,
        stderr=child,
        start_new_session=True,
    )
    os.close(child)
    said = b""
    try:
        while b"[y/N]" not in said and process.poll() is None:
            if select.select([parent], [], [], 60)[0]:
                said += os.read(parent, 4096)
        os.write(parent, answer.encode() + b"\n")
        while process.poll() is None:
            if select.select([parent], [], [], 1)[0]:
                with _eof_is_fine():
                    said += os.read(parent, 4096)
        return process.wait(timeout=60), said.decode(errors="replace")
    finally:
        os.close(parent)


class _eof_is_fine:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, trace: object) -> bool:
        return isinstance(error, OSError)


def python_examples() -> Iterator[str]:
    for block in blocks():
        if block.language == "python" and not block.skipped:
            yield block.text


def test_the_readme_shows_the_two_commands_first() -> None:
    first = next(block for block in blocks() if block.language == "sh")
    assert commands(first) == ["make serve", "make test"]


def test_the_python_examples_run_as_one_program(home: Path) -> None:
    program = "\n".join(python_examples())
    done = run(f"{sys.executable} -c {shlex_quote(program)}", home)
    assert done.returncode == 0, done.stderr
    assert "conv-7" in done.stdout and "t-42" in done.stdout  # the search found the turn
    assert b"argon2id" not in b"".join(
        path.read_bytes() for path in (home / ".recall").glob("history.db*")
    )  # and the forget at the end took it out of the file


def test_every_terminal_command_runs_as_written(home: Path, port: str) -> None:
    seed(home)
    ran = 0
    for block in blocks():
        if block.language != "sh" or block.skipped:
            continue
        for line in (line.replace(README_PORT, port) for line in commands(block)):
            if line in RUN_BY_CI:
                continue
            ran += 1
            if line == "make serve":
                server = started(line, home, port, cwd=ROOT)
                assert stop(server) in (0, 2, -signal.SIGINT)  # make reports the interrupt
            elif line.startswith("recall serve"):
                server = started(line, home, port)
                try:
                    for curl in (curl.replace(README_PORT, port) for curl in curl_lines()):
                        done = run(curl, home)
                        assert done.returncode == 0, curl
                        assert json.loads(done.stdout) and '"detail"' not in done.stdout, curl
                finally:
                    assert stop(server) == 0
                seed(home)  # the table's deletes forgot the project the next lines use
            elif line.startswith("recall mcp"):
                done = subprocess.run(
                    ["bash", "-c", line],
                    cwd=home / "code" / "shop",
                    env=environment(home),
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )  # no client: it serves until its input ends
                assert done.returncode == 0, done.stderr
            elif line.startswith("recall forget") and "--yes" not in line:
                code, said = answered(line, "y", home)
                assert code == 0 and "Traceback" not in said, said
            else:
                done = run(line, home)
                assert done.returncode == 0, f"{line}: {done.returncode}\n{done.stderr}"
                assert "Traceback" not in done.stderr
    assert ran >= 20  # `make serve`, the terminal section and the imports
    assert len(curl_lines()) >= 8  # one for each endpoint of the table

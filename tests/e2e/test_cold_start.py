"""What a new `recall` process loads before it answers: each command imports only what it uses.

A hook runs once per agent turn and an agent may search at every step, so start-up is paid far
more often than anything else (bench/startup.py measures it). These tests pin the import graph,
not a clock: a module a command does not need must not be imported by it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.startup import INITIALIZE, mcp_stdin
from history import HistoryIndex, meaning, rules_version
from history.importers import _READERS

# What none of the short commands needs: the service, the MCP SDK, the migrations' engine.
SERVICE = ("fastapi", "starlette", "uvicorn", "pydantic", "mcp", "alembic", "history.api")
STORAGE = ("sqlalchemy", "history.index", "history.store", "history.redaction")
# What reading the index does not need: the redaction rules (only recording redacts), the
# importers, blame, and the tools a command does not answer with.
RECORDING = ("history.redaction", "history.prepare", "history.importers")
OTHER_TOOLS = ("history.blame", "history.tools.recall_file", "rich")
# The tables are SQLAlchemy Core's (history/store/models.py): no command loads the ORM.
ORM = ("sqlalchemy.orm", "sqlalchemy.ext")

DRIVER = """
import json, sys
from history.cli import main
try:
    code = main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
"""


def loaded(tmp_path: Path, *args: str, stdin: str = "") -> set[str]:
    """The modules a `recall ARGS` process holds when it is done."""
    listing = tmp_path / "modules.json"
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "home")}
    subprocess.run(
        [sys.executable, "-c", DRIVER, str(listing), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return set(json.loads(listing.read_text()))


def under(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    index = HistoryIndex.open(tmp_path / "home" / "history.db")
    index.record(
        turn_id="t1",
        session_id="s1",
        project=str(tmp_path),
        asked="how should the login function hash passwords",
        answered="with argon2id",
        asked_at=datetime.now(UTC),
    )
    index.close()
    return tmp_path


def test_version_imports_neither_the_index_nor_the_service(home: Path) -> None:
    modules = loaded(home, "--version")
    assert under(modules, SERVICE + STORAGE + ("history.importers", "rich")) == []
    assert "importlib.metadata" not in modules


# What a search of a current file does without: it reads through the SQLite driver alone
# (history/direct_read.py), so neither SQLAlchemy nor the index nor the store's engine.
ENGINE = ("sqlalchemy", "history.index", "history.store.models", "history.store.sqlite.engine")
DIRECT_SEARCH = "history.store.sqlite.direct_search"


def test_search_of_a_current_file_imports_no_sqlalchemy_nor_the_service(home: Path) -> None:
    modules = loaded(home, "search", "login", "--everywhere")
    assert DIRECT_SEARCH in modules  # it did search, through the driver
    assert under(modules, SERVICE + RECORDING + OTHER_TOOLS + ORM + ENGINE) == []


def test_search_of_a_project_reads_its_key_without_the_redaction_rules(home: Path) -> None:
    modules = loaded(home, "search", "login", "--project", str(home), "--json")
    assert DIRECT_SEARCH in modules  # it did look the project up
    assert under(modules, SERVICE + RECORDING + OTHER_TOOLS + ORM + ENGINE) == []


def test_search_of_a_project_with_no_turns_reads_no_redaction_rules_either(home: Path) -> None:
    """No stored key is a masked one: the project's masked key would find nothing either."""
    modules = loaded(home, "search", "login", "--project", str(home / "elsewhere"))
    assert DIRECT_SEARCH in modules
    assert under(modules, SERVICE + RECORDING + OTHER_TOOLS + ORM + ENGINE) == []


def test_search_of_a_file_with_a_rescan_due_goes_through_the_index(home: Path) -> None:
    """Its hits are masked on the way out (history/masking.py): the index's to do."""
    conn = sqlite3.connect(home / "home" / "history.db")
    with conn:
        conn.execute(
            "UPDATE retention_settings SET keep_days = 1 WHERE project = ?",
            (rules_version.VERSION_KEY,),
        )
    conn.close()
    modules = loaded(home, "search", "login", "--everywhere")
    assert "history.index" in modules
    assert under(modules, SERVICE + OTHER_TOOLS + ORM) == []


MCP_DRIVER = """
import json, os, sys
exit_now = os._exit
def listed(code):
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
    exit_now(code)
os._exit = listed  # `recall mcp` ends its process at once when its client goes
from history.cli import main
main(sys.argv[2:])
"""


def test_the_mcp_server_answers_its_first_search_without_sqlalchemy(home: Path) -> None:
    listing = home / "mcp-modules.json"
    env = {**os.environ, "RECALL_HOME": str(home / "home")}
    server = subprocess.Popen(
        [sys.executable, "-c", MCP_DRIVER, str(listing), "mcp", "--project", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(mcp_stdin().replace("parser config", "login"))
        server.stdin.flush()
        answer: dict[str, object] = {}
        for line in server.stdout:
            answer = json.loads(line)
            if answer.get("id") == 2:
                break
        server.stdin.close()
        server.wait(timeout=30)
    finally:
        server.kill()
    assert "argon2id" in json.dumps(answer)  # it found the turn
    modules = set(json.loads(listing.read_text()))
    assert DIRECT_SEARCH in modules
    # Where search by meaning is installed the server opens the index at start, to embed the
    # turns waiting in the background (history/tools/mcp_server.py): the engine is its.
    engine = () if meaning.installed() else ENGINE
    assert under(modules, (*RECORDING, "rich", *ORM, *engine)) == []


def test_show_opens_a_turn_without_the_redaction_rules_or_the_service(home: Path) -> None:
    modules = loaded(home, "show", "t1")
    assert "history.index" in modules
    assert under(modules, SERVICE + RECORDING + OTHER_TOOLS + ORM) == []


def hook_payload(home: Path) -> str:
    transcript = home / "session.jsonl"
    line = {
        "type": "user",
        "sessionId": "s2",
        "uuid": "u1",
        "cwd": str(home),
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "hash the passwords"},
    }
    transcript.write_text(json.dumps(line) + "\n")
    return json.dumps({"transcript_path": str(transcript), "hook_event_name": "Stop"})


# A hook into a current file writes through the SQLite driver alone
# (history/direct_record.py), without ENGINE either.


def test_hook_imports_neither_the_service_nor_the_migrations_nor_sqlalchemy(home: Path) -> None:
    modules = loaded(home, "hook", "claude-code", stdin=hook_payload(home))
    assert "history.importers.claude_code" in modules  # it did import the turn
    assert "history.store.sqlite.direct" in modules  # through the driver
    unwanted = (*SERVICE, *ORM, *ENGINE, "rich", "http.client", "history.remote.client")
    assert under(modules, unwanted) == []
    # One agent's reader: the other formats' modules are imported when named.
    readers = {f"history.importers.{module}" for module, _ in _READERS.values()}
    assert sorted(readers & modules) == ["history.importers.claude_code"]
    index = HistoryIndex.open(home / "home" / "history.db")
    try:
        assert "s2" in [hit.session_id for hit in index.search("hash passwords", None)]
    finally:
        index.close()


def test_hook_into_a_home_with_no_database_yet_makes_it_through_the_index(tmp_path: Path) -> None:
    modules = loaded(tmp_path, "hook", "claude-code", stdin=hook_payload(tmp_path))
    assert "history.index" in modules  # made and migrated by the index
    index = HistoryIndex.open(tmp_path / "home" / "history.db")
    try:
        assert "s2" in [hit.session_id for hit in index.search("hash passwords", None)]
    finally:
        index.close()


def test_a_command_that_names_no_command_still_lists_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from history.cli import COMMAND_MODULES, main

    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    assert all(name in shown for name in COMMAND_MODULES)


def test_every_registered_command_is_mapped_to_its_module() -> None:
    """A command added to a module but not to COMMAND_MODULES would be unreachable."""
    import argparse

    from history.cli import COMMAND_MODULES, command_modules

    for name, module_name in COMMAND_MODULES.items():
        parser = argparse.ArgumentParser()
        commands = parser.add_subparsers()
        for module in command_modules(name):
            assert module.__name__ == f"history.cli.{module_name}"
            module.register(commands, argparse.ArgumentParser(add_help=False))
        assert name in commands.choices
    every = argparse.ArgumentParser().add_subparsers()
    for module in command_modules(None):
        module.register(every, argparse.ArgumentParser(add_help=False))
    assert set(every.choices) == set(COMMAND_MODULES)


def test_the_mcp_server_exits_within_a_second_of_its_client_closing_stdin(home: Path) -> None:
    env = {**os.environ, "RECALL_HOME": str(home / "home")}
    server = subprocess.Popen(
        [sys.executable, "-m", "history.cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1  # it is serving
    closed = time.monotonic()
    server.stdin.close()
    try:
        server.wait(timeout=10)
    finally:
        server.kill()
    assert time.monotonic() - closed < 1.0
    assert server.returncode == 0

"""Every way in is a `recall` command: `python -m history.api.serve` and `python -m
history.mcp_server` are thin shims over history/cli, so their options are parsed, checked and
translated as every command's are; no face imports the CLI, and the CLI reaches the servers
(history/api/server.py, history/tools/mcp_server.py), never a shim: nothing goes round in a
circle."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.import_graph import (
    HISTORY,
    imported,
    module_name,
    modules,
)

SHIMS = {"history.api.serve": "serve", "history.mcp_server": "mcp"}


@pytest.mark.parametrize("shim", SHIMS)
def test_a_shim_only_hands_its_arguments_to_the_cli(shim: str) -> None:
    path = HISTORY.parent / (shim.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed = {"__future__", "__future__.annotations", "sys", "history.cli", "history.cli.main"}
    assert imported(path) <= allowed
    defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Assign))]
    assert defined == []
    assert f'main(["{SHIMS[shim]}", *sys.argv[1:]])' in path.read_text(encoding="utf-8")


def test_only_the_shims_import_the_cli_and_nothing_imports_a_shim() -> None:
    for path in modules("api", "web", "tools", "importers", "watch", "store", "redaction"):
        if module_name(path) in SHIMS:
            continue
        assert not any(m.startswith("history.cli") for m in imported(path)), module_name(path)
    for path in modules(""):
        assert not imported(path) & set(SHIMS), module_name(path)


def test_the_mcp_shim_speaks_the_language_asked_for_as_every_command_does(
    tmp_path: Path,
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "history.mcp_server", "--language", "de", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "RECALL_HOME": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Aufruf: recall mcp")
    assert "--project PROJECT" in run.stdout and "Standard: das aktuelle" in run.stdout


def test_a_bad_option_to_a_shim_is_a_usage_error_in_one_sentence(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "history.api.serve", "--port", "seventy"],
        capture_output=True,
        text=True,
        env={**os.environ, "RECALL_HOME": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "'seventy' is not a port number" in run.stderr

"""The faces (CLI, HTTP, page, agent tools, MCP) talk to HistoryIndex only: none imports the
storage packages, asks for an engine or a backend, or branches on a dialect's name. Each
backend keeps to itself: PostgreSQL's modules import nothing of SQLite's, and the index
imports neither backend. Read from the source's import statements (`ast`), so a lazy import
inside a function counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.import_graph import HISTORY, imported, module_name, modules

FACES = ("cli", "api", "web", "tools", "mcp_server")
DIALECT_NAMES = {"sqlite", "postgresql", "postgres"}


def faces() -> list[Path]:
    found = list(modules(*FACES))
    assert len(found) > 40, "the faces' modules were not found"
    return found


@pytest.mark.parametrize("path", faces(), ids=module_name)
def test_no_face_imports_the_storage_packages(path: Path) -> None:
    storage = sorted(m for m in imported(path) if m.startswith("history.store"))
    assert storage == [], f"{module_name(path)} imports {storage}"


@pytest.mark.parametrize("path", faces(), ids=module_name)
def test_no_face_asks_for_an_engine_or_branches_on_a_dialect(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    asked = sorted(
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in ("engine", "backend", "_engine")
    )
    assert asked == [], f"{module_name(path)} reads {asked}"
    compared = sorted(
        constant.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        for constant in ast.walk(node)
        if isinstance(constant, ast.Constant) and constant.value in DIALECT_NAMES
    )
    assert compared == [], f"{module_name(path)} compares with {compared}"


def test_the_postgresql_backend_imports_nothing_of_sqlites() -> None:
    for path in modules("store/postgres"):
        sqlite = sorted(m for m in imported(path) if m.startswith("history.store.sqlite"))
        assert sqlite == [], f"{module_name(path)} imports {sqlite}"


def test_the_index_imports_neither_backend() -> None:
    backends = sorted(
        m
        for m in imported(HISTORY / "index.py")
        if m.startswith(("history.store.sqlite", "history.store.postgres", "sqlalchemy"))
    )
    assert backends == []


def test_the_import_reading_sees_a_storage_import_where_there_is_one(tmp_path: Path) -> None:
    """The reading itself can fail: a face that imported the store, lazily, would be seen."""
    planted = tmp_path / "planted.py"
    planted.write_text("def f():\n    from ..store.sqlite import damaged\n", encoding="utf-8")
    assert "history.store.sqlite.damaged" in imported(planted, "history.cli.planted")
    assert not any(m.startswith("history.store") for m in imported(HISTORY / "cli/common.py"))

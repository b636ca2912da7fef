"""The modules of history/ and what each imports, read from the source (ast), not by
importing it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.paths import ROOT

HISTORY = ROOT / "history"


def modules(*parts: str) -> Iterator[Path]:
    for part in parts:
        found = HISTORY / part
        if found.is_dir():
            yield from sorted(found.rglob("*.py"))
        if found.with_suffix(".py").is_file():
            yield found.with_suffix(".py")


def module_name(path: Path) -> str:
    dotted = path.relative_to(HISTORY.parent).with_suffix("").parts
    return ".".join(dotted[:-1] if dotted[-1] == "__init__" else dotted)


def imported(path: Path, name: str | None = None) -> set[str]:
    """Every module the file (the module `name`, by default its own) imports, relative imports
    resolved, `from a import b` as `a.b` too."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*stem, base] if base else stem)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found

"""Whole-JSON session files (one document a session) read as far as they are whole.

Agents that rewrite one JSON document per session (Cline's task files, Continue, Copilot Chat)
can leave it cut short when they stop mid-write. `load` reads a whole document; when it is not
whole, `salvage` takes the entries of the named array (or of a top-level array) that are whole,
so an import keeps what was written and says what it lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_DECODER = json.JSONDecoder()


@dataclass
class Loaded:
    value: Any = None
    complete: bool = True
    problem: str = ""
    entries: list[Any] = field(default_factory=list)  # salvaged entries when not complete


def read_text(path: Path) -> tuple[str | None, str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace"), ""
    except OSError as error:
        return None, f"Could not read {path}: {error.strerror or 'unreadable'}."


def load(path: Path, array_key: str | None = None) -> Loaded:
    """The file's JSON; when it does not parse, the whole entries of its array (top-level, or
    the value of `array_key`) that precede the damage, with a sentence that says so."""
    text, problem = read_text(path)
    if text is None:
        return Loaded(complete=False, problem=problem)
    try:
        return Loaded(value=json.loads(text))
    except ValueError:
        pass
    entries = salvage(text, array_key)
    return Loaded(
        complete=False,
        entries=entries,
        problem=f"{path.name} is not whole JSON (cut short or damaged); "
        f"{len(entries)} whole entries before the damage were read, the rest skipped.",
    )


def salvage(text: str, array_key: str | None) -> list[Any]:
    """The whole elements at the start of an array in damaged JSON text."""
    if array_key is None:
        start = text.find("[")
    else:
        marker = text.find(f'"{array_key}"')
        start = text.find("[", marker) if marker >= 0 else -1
    if start < 0:
        return []
    found: list[Any] = []
    position = start + 1
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            return found
        try:
            value, position = _DECODER.raw_decode(text, position)
        except ValueError:
            return found
        found.append(value)


def string_field(text: str, key: str) -> str:
    """A top-level string field read from damaged JSON text (its first occurrence)."""
    marker = text.find(f'"{key}"')
    colon = text.find(":", marker) if marker >= 0 else -1
    if colon < 0:
        return ""
    position = colon + 1
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    try:
        value, _ = _DECODER.raw_decode(text, position)
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""

"""Parsers for coding-agent transcripts: Claude Code, Codex CLI and Aider."""

from __future__ import annotations

from history.importers.aider import Aider
from history.importers.base import (
    TAINTING_TOOLS,
    ImportedTurn,
    ReadReport,
    TranscriptFormat,
    is_tainting_tool,
)
from history.importers.claude_code import ClaudeCode
from history.importers.codex import Codex

FORMATS: dict[str, TranscriptFormat] = {fmt.name: fmt for fmt in (ClaudeCode(), Codex(), Aider())}


def detect() -> list[TranscriptFormat]:
    """The formats with at least one transcript under their default root."""
    found = []
    for fmt in FORMATS.values():
        root = fmt.default_root()
        if root.exists() and next(fmt.discover(root), None) is not None:
            found.append(fmt)
    return found


__all__ = [
    "FORMATS",
    "TAINTING_TOOLS",
    "ImportedTurn",
    "ReadReport",
    "TranscriptFormat",
    "detect",
    "is_tainting_tool",
]

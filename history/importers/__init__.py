"""Parsers for coding-agent transcripts: Claude Code, Codex CLI, Aider, Cline, Roo Code, Kilo Code,
GitHub Copilot CLI, Copilot Chat in VS Code, Continue, Goose and Cursor."""

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
from history.importers.cline import Cline, KiloCode, RooCode
from history.importers.codex import Codex
from history.importers.continue_dev import Continue
from history.importers.copilot_chat import CopilotChat
from history.importers.copilot_cli import CopilotCli
from history.importers.cursor import Cursor
from history.importers.goose import Goose

FORMATS: dict[str, TranscriptFormat] = {
    fmt.name: fmt
    for fmt in (
        ClaudeCode(),
        Codex(),
        Aider(),
        Cline(),
        RooCode(),
        KiloCode(),
        CopilotCli(),
        CopilotChat(),
        Continue(),
        Goose(),
        Cursor(),
    )
}


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

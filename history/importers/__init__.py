"""Parsers for coding-agent transcripts: Claude Code, Codex CLI, Aider, Gemini CLI, Qwen Code,
OpenCode, Crush, Cline, Roo Code, Kilo Code, GitHub Copilot CLI, Copilot Chat in VS Code,
Continue, Goose and Cursor."""

from __future__ import annotations

from history.importers.aider import Aider
from history.importers.base import (
    TAINTING_TOOLS,
    ImportedTurn,
    Places,
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
from history.importers.crush import Crush
from history.importers.cursor import Cursor
from history.importers.gemini import Gemini
from history.importers.goose import Goose
from history.importers.opencode import OpenCode
from history.importers.qwen_code import QwenCode

FORMATS: dict[str, TranscriptFormat] = {
    fmt.name: fmt
    for fmt in (
        ClaudeCode(),
        Codex(),
        Aider(),
        QwenCode(),
        Gemini(),
        OpenCode(),
        Crush(),
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


def detect(places: Places | None = None) -> list[TranscriptFormat]:
    """The formats with at least one transcript in one of their places on this machine."""
    from history.importers.auto import with_sessions

    return with_sessions(FORMATS.values(), places or Places.here())


__all__ = [
    "FORMATS",
    "TAINTING_TOOLS",
    "ImportedTurn",
    "Places",
    "ReadReport",
    "TranscriptFormat",
    "detect",
    "is_tainting_tool",
]

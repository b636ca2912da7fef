"""Parsers for coding-agent transcripts: Claude Code, Codex CLI, Aider, Gemini CLI, Qwen Code,
OpenCode, Crush, Cline, Roo Code, Kilo Code, GitHub Copilot CLI, Copilot Chat in VS Code,
Continue, Goose and Cursor."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from history.importers.base import (
    TAINTING_TOOLS,
    ImportedTurn,
    Places,
    ReadReport,
    TranscriptFormat,
    is_tainting_tool,
)

# Each format's name, the module here that reads it and its class, in the order the formats are
# tried (`recall import auto`, a file two formats could claim).
_READERS = {
    "claude-code": ("claude_code", "ClaudeCode"),
    "codex": ("codex", "Codex"),
    "aider": ("aider", "Aider"),
    "qwen-code": ("qwen_code", "QwenCode"),
    "gemini": ("gemini", "Gemini"),
    "opencode": ("opencode", "OpenCode"),
    "crush": ("crush", "Crush"),
    "cline": ("cline", "Cline"),
    "roo-code": ("cline", "RooCode"),
    "kilo-code": ("cline", "KiloCode"),
    "copilot-cli": ("copilot_cli", "CopilotCli"),
    "copilot-chat": ("copilot_chat", "CopilotChat"),
    "continue": ("continue_dev", "Continue"),
    "goose": ("goose", "Goose"),
    "cursor": ("cursor", "Cursor"),
}


class _Formats(Mapping[str, TranscriptFormat]):
    """Every format by name, each module imported when its format is first asked for: a hook
    reads one agent's transcript, and importing all fifteen readers was ~35 ms of its start."""

    def __init__(self) -> None:
        self._made: dict[str, TranscriptFormat] = {}

    def __getitem__(self, name: str) -> TranscriptFormat:
        made = self._made.get(name)
        if made is None:
            module, reader = _READERS[name]
            made = getattr(importlib.import_module(f"history.importers.{module}"), reader)()
            assert isinstance(made, TranscriptFormat) and made.name == name
            self._made[name] = made
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(_READERS)

    def __len__(self) -> int:
        return len(_READERS)


FORMATS: Mapping[str, TranscriptFormat] = _Formats()


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

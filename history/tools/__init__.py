"""The agent's function-calling tools over the index.

Each tool is imported when it is first named: `recall search` needs recall_history's text and
not recall_file's blame (tests/e2e/test_cold_start.py pins what a command loads).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from history.tools.recall_file import RecallFileTool
    from history.tools.recall_history import RecallHistoryTool
    from history.tools.recall_turn import RecallTurnTool

__all__ = ["RecallFileTool", "RecallHistoryTool", "RecallTurnTool"]

_MODULES = {
    "RecallFileTool": "recall_file",
    "RecallHistoryTool": "recall_history",
    "RecallTurnTool": "recall_turn",
}


def __getattr__(name: str) -> object:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"history.tools.{_MODULES[name]}"), name)

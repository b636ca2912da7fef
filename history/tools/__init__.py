"""The agent's function-calling tools over the index."""

from history.tools.recall_file import RecallFileTool
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool

__all__ = ["RecallFileTool", "RecallHistoryTool", "RecallTurnTool"]

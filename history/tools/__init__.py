"""The agent's function-calling tools over the index."""

from history.tools.recall_history import RecallHistoryTool

__all__ = ["RecallHistoryTool"]

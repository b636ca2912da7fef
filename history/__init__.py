"""recall-history: a long-term, searchable history of a coding agent's turns."""

from history.domain import Hit
from history.index import HistoryIndex, history_for
from history.projects import project_key
from history.redact import redact

__all__ = ["HistoryIndex", "Hit", "history_for", "project_key", "redact"]

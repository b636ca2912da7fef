"""recall-history: a long-term, searchable history of a coding agent's turns."""

from history.domain import ConversationSummary, Hit, ProjectSummary, Turn
from history.index import HistoryIndex, history_for
from history.projects import project_key
from history.redact import redact

__all__ = [
    "ConversationSummary",
    "HistoryIndex",
    "Hit",
    "ProjectSummary",
    "Turn",
    "history_for",
    "project_key",
    "redact",
]

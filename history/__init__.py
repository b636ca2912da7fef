"""recall-history: a long-term, searchable history of a coding agent's turns.

The names below are loaded when first asked for (PEP 562): `import history.cli` for a
`recall --version` does not pay for the index, its storage and SQLAlchemy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from history.domain import ConversationSummary, Hit, ProjectSummary, Turn
    from history.index import HistoryIndex, history_for
    from history.projects import project_key
    from history.redact import redact

_HOMES = {
    "ConversationSummary": "history.domain",
    "Hit": "history.domain",
    "ProjectSummary": "history.domain",
    "Turn": "history.domain",
    "HistoryIndex": "history.index",
    "history_for": "history.index",
    "project_key": "history.projects",
    "redact": "history.redact",
}

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


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'history' has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name]), name)
    globals()[name] = value
    return value

"""What the index stores and what a search returns, free of any database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class NewTurn:
    """A turn ready to store: redacted, capped, de-duplicated, its project already a key."""

    turn_id: str
    session_id: str
    project: str
    asked_at: datetime
    tainted: bool
    asked: str
    answered: str
    files: tuple[str, ...]
    edited: tuple[str, ...]
    tools: tuple[str, ...]


@dataclass(frozen=True)
class Hit:
    """A turn found by a search. `score`: higher is better."""

    turn_id: str
    session_id: str
    project: str
    asked_at: datetime
    tainted: bool
    asked: str
    answered: str
    files: tuple[str, ...]
    edited: tuple[str, ...]
    tools: tuple[str, ...]
    score: float


@dataclass(frozen=True)
class UpsertCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0

"""Turns as a caller says them, before `prepare`: the fields a test cares about, the rest plain."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from history.domain import Turn


def raw_turn(
    turn_id: str, session_id: str, project: str, asked: str, answered: str = "", **more: Any
) -> Turn:
    """Asked now, untainted, touching no file or tool, unless `more` says otherwise."""
    plain: dict[str, Any] = {"asked_at": datetime.now(UTC), "tainted": False}
    plain |= {"files": (), "edited": (), "tools": ()}
    return Turn(
        turn_id=turn_id,
        session_id=session_id,
        project=project,
        asked=asked,
        answered=answered,
        **(plain | more),
    )

"""Turns for the tests that compare the driver-only paths (the hook's write, a search's read)
with the whole index over identical homes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from history.domain import Turn

NOW = datetime.now(UTC).replace(microsecond=0)
TOKEN = "ghp_" + "aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4"


def turn(turn_id: str, session: str, project: str, days_ago: float, **fields: Any) -> Turn:
    values: dict[str, Any] = {
        "tainted": False,
        "asked": f"how does {turn_id} parse the config",
        "answered": f"{turn_id} reads the parser settings",
        "files": (),
        "edited": (),
        "tools": (),
        **fields,
    }
    return Turn(
        turn_id=turn_id,
        session_id=session,
        project=project,
        asked_at=NOW - timedelta(days=days_ago, microseconds=7),
        **values,
    )

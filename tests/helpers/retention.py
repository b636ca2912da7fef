"""Turns of several ages for the retention tests, with a canary in the old ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

CANARY = "wombatcanaryq" + "zvfhtrelkjxpmnd"


OLD, RECENT = "/work/old", "/work/recent"


NOW = datetime.now(UTC)


@dataclass(frozen=True)
class Imported:
    turn_id: str
    session_id: str
    project: str
    asked: str
    answered: str
    asked_at: datetime
    files: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    tainted: bool = False
    work: str = field(default="")


def turns(project: str, old: int, recent: int = 20) -> list[Imported]:
    """`old` turns asked 100 to 200 days ago holding the canary, `recent` of the last 10 days."""
    made = [
        Imported(
            f"{project}-old-{n}",
            f"{project}-s{n % 7}",
            project,
            f"parser question {CANARY} {n}",
            f"answered {CANARY}",
            NOW - timedelta(days=100 + n % 100, minutes=n),
            files=(f"src/{CANARY}.py",),
        )
        for n in range(old)
    ]
    made += [
        Imported(
            f"{project}-new-{n}",
            f"{project}-s{n % 7}",
            project,
            f"parser question recent {n}",
            "answered fine",
            NOW - timedelta(days=n % 10, minutes=n),
        )
        for n in range(recent)
    ]
    return made

"""A clock the tests move by hand."""

from __future__ import annotations

from datetime import UTC, datetime


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC).timestamp()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

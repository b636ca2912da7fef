"""The contract of a turn store. The SQLite store implements it; tests use a fake of their own."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from datetime import datetime

from history.domain import Hit, NewTurn


class TurnRepository(abc.ABC):
    @abc.abstractmethod
    def upsert(self, turn: NewTurn) -> None:
        """Store the turn, replacing the one with the same `turn_id`."""

    @abc.abstractmethod
    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> list[Hit]:
        """Up to `k` turns matching any of `terms`, best first."""

    @abc.abstractmethod
    def count(self, project: str | None) -> int: ...

    @abc.abstractmethod
    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        """Remove those sessions' turns; the number removed."""

    @abc.abstractmethod
    def delete_project(self, project: str) -> int: ...

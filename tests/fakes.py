"""An in-memory TurnRepository: the ABC is the contract, this fake honours it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from history.domain import Hit, NewTurn
from history.query import words
from history.repository import TurnRepository


class FakeTurnRepository(TurnRepository):
    def __init__(self) -> None:
        self.turns: dict[str, NewTurn] = {}

    def upsert(self, turn: NewTurn) -> None:
        self.turns[turn.turn_id] = turn

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> list[Hit]:
        found = []
        for turn in self.turns.values():
            if project is not None and turn.project != project:
                continue
            if since is not None and turn.asked_at < since:
                continue
            text = words(" ".join((turn.asked, turn.answered, *turn.files)))
            score = float(sum(text.count(term) for term in terms))
            if score:
                found.append(Hit(**{**turn.__dict__, "score": score}))
        found.sort(key=lambda hit: (-hit.score, -hit.asked_at.timestamp()))
        return found[:k]

    def count(self, project: str | None) -> int:
        return sum(1 for t in self.turns.values() if project is None or t.project == project)

    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        doomed = [key for key, t in self.turns.items() if t.session_id in set(session_ids)]
        for key in doomed:
            del self.turns[key]
        return len(doomed)

    def delete_project(self, project: str) -> int:
        doomed = [key for key, t in self.turns.items() if t.project == project]
        for key in doomed:
            del self.turns[key]
        return len(doomed)


class BrokenTurnRepository(FakeTurnRepository):
    """A store whose every write fails, as a full disk or a locked file would."""

    def upsert(self, turn: NewTurn) -> None:
        raise OSError("disk I/O error")

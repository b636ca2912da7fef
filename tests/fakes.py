"""An in-memory TurnRepository: the ABC is the contract, this fake honours it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from history.domain import Hit, NewTurn, UpsertCounts
from history.query import words
from history.store.repository import TurnRepository


class FakeTurnRepository(TurnRepository):
    def __init__(self) -> None:
        self.turns: dict[str, NewTurn] = {}
        self.tombstones: set[str] = set()

    def upsert(self, turn: NewTurn) -> None:
        self.turns[turn.turn_id] = turn

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        new = updated = unchanged = 0
        for turn in turns:
            old = self.turns.get(turn.turn_id)
            new, updated, unchanged = (
                (new + 1, updated, unchanged)
                if old is None
                else (new, updated, unchanged + 1)
                if old == turn
                else (new, updated + 1, unchanged)
            )
            self.turns[turn.turn_id] = turn
        return UpsertCounts(new, updated, unchanged)

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

    def session_ids(self, project: str | None) -> list[str]:
        return sorted({t.session_id for t in self.turns.values() if project in (None, t.project)})

    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        self.tombstones.update(session_ids)
        doomed = [key for key, t in self.turns.items() if t.session_id in set(session_ids)]
        for key in doomed:
            del self.turns[key]
        return len(doomed)

    def delete_project(self, project: str) -> int:
        doomed = [key for key, t in self.turns.items() if t.project == project]
        self.tombstones.update(self.turns[key].session_id for key in doomed)
        for key in doomed:
            del self.turns[key]
        return len(doomed)

    def purge(self) -> bool:
        return True

    def merge(self, pages: int) -> bool:
        return False

    def checkpoint(self) -> None:
        pass

    def forgotten(self, session_ids: Sequence[str]) -> set[str]:
        return self.tombstones.intersection(session_ids)

    def unforget(self, session_ids: Sequence[str]) -> None:
        self.tombstones.difference_update(session_ids)


class BrokenTurnRepository(FakeTurnRepository):
    """A store whose every write fails, as a full disk or a locked file would."""

    def upsert(self, turn: NewTurn) -> None:
        raise OSError("disk I/O error")

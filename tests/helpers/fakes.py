"""An in-memory TurnRepository: the ABC is the contract, this fake honours it. It needs no care:
an index over it takes the maintenance port's `Unattended`."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime

from history.domain import (
    EDITED_SHOWN,
    ConversationSummary,
    Hit,
    NewTurn,
    ProjectSummary,
    SearchResults,
    Turn,
    UpsertCounts,
    first_asked,
)
from history.paging import PageKey
from history.query import words
from history.store.repository import Candidate, TurnRepository


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
    ) -> SearchResults:
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
        return SearchResults(found[:k])

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

    def forgotten(self, session_ids: Sequence[str]) -> set[str]:
        return self.tombstones.intersection(session_ids)

    def unforget(self, session_ids: Sequence[str]) -> None:
        self.tombstones.difference_update(session_ids)

    # The views. `self.turns` keeps the order turns were first stored in, as rowids do.

    def turn(self, turn_id: str) -> Turn | None:
        return self.turns.get(turn_id)

    def turn_ids_by_prefix(self, prefix: str, limit: int) -> list[str]:
        return sorted(turn_id for turn_id in self.turns if turn_id.startswith(prefix))[:limit]

    def conversation(self, session_id: str, around: str | None, radius: int) -> list[Turn]:
        ordered = self._in_order(t for t in self.turns.values() if t.session_id == session_id)
        if around is None:
            return ordered
        at = next((i for i, t in enumerate(ordered) if t.turn_id == around), None)
        return [] if at is None else ordered[max(0, at - radius) : at + radius + 1]

    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[ConversationSummary]:
        groups: dict[tuple[str, str], list[Turn]] = {}
        for turn in self.turns.values():
            groups.setdefault((turn.session_id, turn.project), []).append(turn)
        found = [self._summary(turns) for turns in groups.values()]
        found = [
            c
            for c in found
            if project in (None, c.project)
            and (since is None or c.last_asked_at >= since)
            and (before is None or PageKey(c.last_asked_at, c.session_id, c.project) < before)
        ]
        found.sort(key=lambda c: (c.last_asked_at, c.session_id, c.project), reverse=True)
        return found[:limit]

    def projects(self) -> list[ProjectSummary]:
        by_project: dict[str, list[Turn]] = {}
        for turn in self.turns.values():
            by_project.setdefault(turn.project, []).append(turn)
        found = [
            ProjectSummary(
                project=project,
                turns=len(turns),
                conversations=len({t.session_id for t in turns}),
                first_asked_at=min(t.asked_at for t in turns),
                last_asked_at=max(t.asked_at for t in turns),
            )
            for project, turns in by_project.items()
        ]
        found.sort(key=lambda p: p.project)
        found.sort(key=lambda p: p.last_asked_at, reverse=True)
        return found

    # The turns that name a file: every turn whose files hold the path, by its row (the order
    # turns were first stored in, from 1).

    def file_candidates(self, path: str, project: str | None) -> list[Candidate]:
        rows = {turn_id: n for n, turn_id in enumerate(self.turns, start=1)}
        found = [
            Candidate(
                rows[t.turn_id], t.project, t.asked_at, json.dumps(t.files), json.dumps(t.edited)
            )
            for t in self.turns.values()
            if path in " ".join(t.files) and project in (None, t.project)
        ]
        return sorted(found, key=lambda c: (c.asked_at, c.id), reverse=True)

    def turns_by_row(self, ids: Sequence[int], project: str | None = None) -> dict[int, Turn]:
        by_row = dict(enumerate(self.turns.values(), start=1))
        found = {row: by_row[row] for row in ids if row in by_row}
        return {row: turn for row, turn in found.items() if project in (None, turn.project)}

    def vectors_stored(self) -> bool:
        return False  # no search by meaning over the fake: it has no database

    def _in_order(self, turns: Iterable[Turn]) -> list[Turn]:
        stored = {turn_id: n for n, turn_id in enumerate(self.turns)}
        return sorted(turns, key=lambda t: (t.asked_at, stored[t.turn_id]))

    def _summary(self, turns: list[Turn]) -> ConversationSummary:
        ordered = self._in_order(turns)
        edits = Counter(path for turn in ordered for path in turn.edited)
        edited = sorted(edits, key=lambda path: (-edits[path], path))[:EDITED_SHOWN]
        return ConversationSummary(
            session_id=ordered[0].session_id,
            project=ordered[0].project,
            first_asked=first_asked(ordered[0].asked),
            first_asked_at=ordered[0].asked_at,
            last_asked_at=ordered[-1].asked_at,
            turns=len(ordered),
            tainted_turns=sum(t.tainted for t in ordered),
            edited=tuple(edited),
        )


class BrokenTurnRepository(FakeTurnRepository):
    """A store whose every write fails, as a full disk or a locked file would."""

    def upsert(self, turn: NewTurn) -> None:
        raise OSError("disk I/O error")

    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        raise OSError("disk I/O error")

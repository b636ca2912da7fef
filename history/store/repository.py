"""The data port: what a turn store holds and answers (record, search, the views, forgetting
and its tombstones, the turns that name a file, retention). The SQLite and PostgreSQL stores
implement it; the unit tests' fake (tests/helpers/fakes.py) subclasses it.
Its care (what a forget still
owes, upkeep, doctor, stats) is the maintenance port's (maintenance.py).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from history.domain import (
    ConversationSummary,
    NewTurn,
    ProjectSummary,
    SearchResults,
    Turn,
    UpsertCounts,
)
from history.paging import PageKey
from history.retention import RetentionPolicy


class Candidate(NamedTuple):
    """A turn whose recorded files may name a path (history/blame.py keeps the exact ones)."""

    id: int  # its row, for `turns_by_row`
    project: str
    asked_at: datetime
    files: str  # JSON arrays as stored
    edited: str


class TurnRepository(abc.ABC):
    @abc.abstractmethod
    def upsert(self, turn: NewTurn) -> None:
        """Store the turn, replacing the one with the same `turn_id`."""

    @abc.abstractmethod
    def upsert_many(self, turns: Sequence[NewTurn]) -> UpsertCounts:
        """Store turns in one transaction; rows already holding the same values are not touched."""

    def record(self, turn: NewTurn) -> UpsertCounts | None:
        """Store one live turn; None when it was set aside to be moved in shortly (SQLite's
        spool, while a forget holds the write lock)."""
        return self.upsert_many([turn])

    @abc.abstractmethod
    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        """Up to `k` turns matching any of `terms`, best first; `approximate` when cut short."""

    @abc.abstractmethod
    def count(self, project: str | None) -> int: ...

    @abc.abstractmethod
    def session_ids(self, project: str | None) -> list[str]: ...

    @abc.abstractmethod
    def delete_sessions(self, session_ids: Sequence[str]) -> int:
        """Remove those sessions' turns and remember them as forgotten; the number removed.
        What the storage still holds of them is scrubbed by the maintenance port."""

    @abc.abstractmethod
    def delete_project(self, project: str) -> int:
        """Remove the project's turns, remembering its sessions as forgotten."""

    def close(self) -> None:
        """Let go of what the store holds beside its engine."""
        return None

    # Retention (history/retention.py). A store without it keeps everything.

    def retention(self) -> RetentionPolicy:
        """The retention settings and the cutoffs expiries left."""
        return RetentionPolicy()

    def set_retention(self, project: str | None, days: int) -> None:
        """Keep the turns (of `project`, None: of every project) `days` days."""
        raise NotImplementedError

    def unset_retention(self, project: str | None) -> bool:
        """Drop that setting; False when there was none."""
        raise NotImplementedError

    def expire(self, project: str | None, before: datetime, at_once: bool = True) -> int:
        """Forget the turns (of `project`, None: of every project) asked before `before`, and
        leave the cutoff that keeps imports from bringing them back; the number forgotten.
        Without `at_once` a large expiry is only listed as owed (the scrub's steps delete it).
        The scrub is owed, as after a forget."""
        raise NotImplementedError

    def expire_due(self, now: datetime) -> int:
        """Expire (not at once) what the settings have made past retention; the turns owed."""
        return 0

    def retention_due(self, now: datetime) -> bool:
        """Some turn is past its retention and still stored."""
        return False

    @abc.abstractmethod
    def forgotten(self, session_ids: Sequence[str]) -> set[str]:
        """Those of `session_ids` that were forgotten."""

    @abc.abstractmethod
    def unforget(self, session_ids: Sequence[str]) -> None:
        """Let those sessions be imported again."""

    # Reading what was found. A forgotten conversation is in none of these.

    @abc.abstractmethod
    def turn(self, turn_id: str) -> Turn | None: ...

    @abc.abstractmethod
    def turn_ids_by_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to `limit` ids of turns starting with `prefix`, in order of id."""

    @abc.abstractmethod
    def conversation(self, session_id: str, around: str | None, radius: int) -> list[Turn]:
        """The session's turns, oldest first (ties: the one stored first); with `around`, only
        that turn and up to `radius` turns either side of it (none when it is not there)."""

    @abc.abstractmethod
    def conversations(
        self, project: str | None, since: datetime | None, limit: int, before: PageKey | None
    ) -> list[ConversationSummary]:
        """Up to `limit` conversations whose last turn is at or after `since`, newest first by
        their `PageKey`, starting after `before`."""

    @abc.abstractmethod
    def projects(self) -> list[ProjectSummary]:
        """Every project, the one with the latest turn first."""

    def holds_project(self, project: str) -> bool:
        """Whether turns are stored under this project key (as given: history/stored_forms.py).
        A store that cannot tell cheaply says no, and the key is masked as on recording."""
        return False

    def holds_masked_projects(self) -> bool:
        """Whether a stored project key may be a masked one (one holding `redacted`)."""
        return True

    @abc.abstractmethod
    def file_candidates(self, path: str, project: str | None) -> list[Candidate]:
        """The turns (of `project`, or of every one) whose recorded files may name `path`,
        newest first: a superset, found by the path's words."""

    @abc.abstractmethod
    def turns_by_row(self, ids: Sequence[int], project: str | None = None) -> dict[int, Turn]:
        """The whole turns of the rows `file_candidates` (or search by meaning) gave; only
        `project`'s (its stored key) when given, which spares PostgreSQL the other partitions."""

    @abc.abstractmethod
    def vectors_stored(self) -> bool:
        """Some turn has a vector for search by meaning (history/meaning/): asked before a
        search loads numpy or the model."""

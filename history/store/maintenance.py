"""The maintenance port: the care of a store, beside its data (repository.py). What a forget
still owes and one step of the upkeep, what the store is and holds, its doctor, and the damaged
copies a file leaves. Each backend implements it; `Unattended` is a store that needs no care (an
in-memory one, the unit tests' fake)."""

from __future__ import annotations

import abc
from collections.abc import Callable
from contextlib import AbstractContextManager

from history.i18n import Messages
from history.reports import About, DeletedCopies, DoctorReport, Recovered, Recovery, Stats
from history.store.owed import ScrubState
from history.store.rescan import Step

# What is said of the store is worded in the CLI's messages (English by default).
ENGLISH = Messages("cli")


class Maintenance(abc.ABC):
    @abc.abstractmethod
    def about(self) -> About:
        """Where the store is, how it searches, and the damaged copies beside it."""

    @abc.abstractmethod
    def owes(self) -> bool:
        """A forget's deletion or scrub is still owed (by any process: it is in the database)."""

    @abc.abstractmethod
    def scrub(self, seconds: float | None, short_steps: bool = False) -> ScrubState:
        """Do a forget's owed work for about `seconds` (None: all of it): "done", "more" (time
        ran out), or "blocked" (it waits for a reader of an older snapshot to let go). With
        `short_steps`, in steps that hold the write lock as briefly as the upkeep's (a re-scan's
        scrub, where no record is set aside in a spool for a forget's longer steps)."""

    @abc.abstractmethod
    def step(self, pages: int, writes: AbstractContextManager[object]) -> ScrubState:
        """One step of the upkeep: of a forget's owed work first, else of the full-text index's
        care (merging about `pages` pages of it, then what the storage keeps up to date beside
        it), holding `writes` (this process's writers' lock) where the step would make them
        wait. "more" while there is more to do, "done", or "blocked" as `scrub`."""

    @abc.abstractmethod
    def stats(self, said: Messages = ENGLISH) -> Stats:
        """What search can find, and the storage's size. Raises DamagedDatabase when part of
        the database cannot be read."""

    @abc.abstractmethod
    def doctor(self, repair: bool, writable: bool, said: Messages = ENGLISH) -> DoctorReport:
        """Check the store (and with `repair`, mend what can be mended), in `said`'s words."""

    @abc.abstractmethod
    def compact(self, said: Messages = ENGLISH) -> str:
        """Merge the whole full-text index now; what that did, in `said`'s words."""

    def rescan_due(self) -> bool:
        """Stored turns are left to re-scan under this process's secret rules (rescan.py)."""
        return False

    def rescan_pending(self) -> bool:
        """Some stored turns may still hold what the current rules mask (no write: any
        process, one that may only read too, asks it before showing turns)."""
        return False

    def rescan_step(self, writes: AbstractContextManager[object]) -> Step:
        """Re-scan the next batch of those turns, holding `writes` while it writes them."""
        return Step()

    def rescan_left(self) -> int:
        """How many stored turns are left to re-scan."""
        return 0

    def delete_damaged(self) -> DeletedCopies | None:
        """Delete the damaged copies beside the file; None where there is no file of the home."""
        return None

    def recover(self, let_go: Callable[[], None]) -> Recovery:
        """Copy what a damaged file still lets be read into a new file that takes its place;
        `let_go()` closes the store first (no process may hold the file while it is replaced)."""
        return Recovery(Recovered.NO_FILE)

    def close(self) -> None:
        """Let go of the database."""
        return None


class Unattended(Maintenance):
    """A store with nothing to care for: nothing owed, nothing to merge, nothing to check."""

    def __init__(self, full_text: bool = False) -> None:
        self.full_text = full_text

    def about(self) -> About:
        return About(where="(in memory)", search="in memory", full_text=self.full_text)

    def owes(self) -> bool:
        return False

    def scrub(self, seconds: float | None, short_steps: bool = False) -> ScrubState:
        return "done"

    def step(self, pages: int, writes: AbstractContextManager[object]) -> ScrubState:
        return "done"

    def stats(self, said: Messages = ENGLISH) -> Stats:
        return Stats(turns=0, sessions=0, oldest=None, newest=None)

    def doctor(self, repair: bool, writable: bool, said: Messages = ENGLISH) -> DoctorReport:
        return DoctorReport()

    def compact(self, said: Messages = ENGLISH) -> str:
        return ""

"""The maintenance port on SQLite: a forget's owed work (forgetting/), FTS5's merges and the WAL's
checkpoints as steps of the upkeep, what the file holds and weighs, doctor (doctor.py), and the
damaged copies a file leaves in the home (damaged.py, recovery.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path

from sqlalchemy import Connection, Engine
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.exc import DatabaseError

from history.i18n import Messages
from history.reports import (
    About,
    DamagedDatabase,
    DeletedCopies,
    DoctorReport,
    Recovered,
    Recovery,
    Stats,
)
from history.store import stats
from history.store.maintenance import ENGLISH, Maintenance
from history.store.owed import ScrubState
from history.store.rescan import Rescan, Step
from history.store.sqlite import (
    best_turns_upkeep,
    damaged,
    doctor,
    fts,
    fts_levels,
    in_place,
    merges,
    rank_extension,
    recovery,
)
from history.store.sqlite.engine import sqlite_path, writer
from history.store.sqlite.forgetting.forget import UPKEEP_STEP_SECONDS, Forgetting
from history.store.sqlite.forgetting.spool import spool_file
from history.store.sqlite.forgetting.steps import LET_IN_SECONDS
from history.upkeep import CALLER_STEP_PAGES

# A re-scan's commits never copy the WAL back (a commit that crosses wal_autocheckpoint's ~40 MB
# does, the lock held: 100-170 ms at 100k): it is copied without blocking writers after this
# much step work instead.
RESCAN_CHECKPOINT_EVERY_SECONDS = 0.5
# What one of the upkeep's merges of the index may hold the write lock: the pages merged a step
# shrink to fit it (each costs 0.5-2 ms on a loaded host), and grow back up to the caller's.
MERGE_STEP_SECONDS = 0.025
LEAST_MERGE_PAGES = 4


class SqliteMaintenance(Maintenance):
    def __init__(self, engine: Engine, full_text: bool, forgetting: Forgetting) -> None:
        self.engine = engine
        self.full_text = full_text
        self._forgetting = forgetting
        self._writer = writer(engine)
        self._best_turns = best_turns_upkeep.Keeper()
        self._path = sqlite_path(engine.url.render_as_string(hide_password=False))
        self._rescan_writer = writer(engine, autocheckpoint=False)
        # Masked in place where FTS5 has secure-delete (in_place.py): no index rewrite owed.
        masking = None
        if full_text and forgetting.secure_delete:
            masking = in_place.InPlaceMasking(lambda conn: forgetting.owe_scrub(conn, at_once=True))
        self._rescan = Rescan(engine, self._rescan_writer, insert, self._masking, True, masking)
        self._rescan_unsynced = 0.0  # re-scan step work since its last checkpoint
        self._merge_pages: int | None = None  # what fits MERGE_STEP_SECONDS, once measured

    def about(self) -> About:
        where = str(self._path) if self._path else self.engine.url.render_as_string()
        search = doctor.FTS5_SEARCH if self.full_text else doctor.LIKE_SEARCH
        copies = damaged.damaged_copies(self._path) if self._path is not None else []
        return About(where, search, self.full_text, tuple(copies))

    def owes(self) -> bool:
        return self._forgetting.owes()

    def scrub(self, seconds: float | None, short_steps: bool = False) -> ScrubState:
        if short_steps:
            with self._forgetting.steps.paced(UPKEEP_STEP_SECONDS):
                return self._forgetting.scrub(seconds)
        return self._forgetting.scrub(seconds)

    def step(self, pages: int, writes: AbstractContextManager[object]) -> ScrubState:
        """A step of a forget's deletion (any process's), else of a re-scan under new secret
        rules, else of a scrub owed, else merge some of the full-text index or, with nothing
        left to merge, checkpoint. The re-scan goes before the scrub: what it masks owes one,
        paid once at its end rather than after each of its steps. A step of CALLER_STEP_PAGES is
        a caller's who waits for the upkeep (tidy): only it merges what reads a large segment
        (merges.py). The merge waits for this process's writes; the checkpoint lets them run;
        after a step that leaves more, the writers of other processes waiting on the lock go
        first (forgetting/writers.py)."""
        if self._rescan.due() and not self._forgetting.deleting():
            self._forgetting.steps.move_spooled()  # a record its steps made wait
            began = time.monotonic()
            self._rescan.paced_step(writes)
            self._merge_new_segments(writes)
            self._rescan_checkpoint(time.monotonic() - began)
            self._forgetting.steps.writers.let_in(LET_IN_SECONDS)
            return "more"
        if self._forgetting.owes():
            state = self._forgetting.step()
            if state != "done":
                return state
        with writes:
            began = time.monotonic()
            asked = min(pages, self._merge_pages or pages)
            merged = self._merge(asked, whole=pages >= CALLER_STEP_PAGES)
            elapsed = time.monotonic() - began
            scale = min(2.0, max(0.25, MERGE_STEP_SECONDS / max(elapsed, 1e-4)))
            self._merge_pages = min(pages, max(LEAST_MERGE_PAGES, int(asked * scale)))
        if merged:
            # The upkeep takes its steps back to back: a record of another process waiting on
            # the lock (SQLite's busy handler polls it) goes first, as between a forget's steps.
            self._forgetting.steps.writers.let_in(LET_IN_SECONDS)
            return "more"
        self._forgetting.checkpoint()
        return "done"

    def _merge(self, pages: int, whole: bool) -> bool:
        """Merge about `pages` pages of FTS5's segments, then the common words' lists, one a
        step (best_turns.py); False when there was nothing left to do. Only a caller who waits
        for the upkeep (`whole`: tidy, doctor) merges what the thread's steps leave
        (merges.py: a large segment's lists written whole hold the lock 114-242 ms at 1M)."""
        if not self.full_text:
            return False
        with self.engine.connect() as conn:
            self._best_turns.plan(conn)  # a read, before the write lock
        with self._writer.begin() as conn:
            if not whole:
                pages = merges.bounded_pages(conn, pages)
            if pages and merges.merged(conn, pages) >= merges.WORKED:
                self._best_turns.merged()
                return True
            # Merged: then the common words' lists, where recall_best_turns is there to build them.
            if not conn.connection.info.get(rank_extension.FUNCTION):
                return False
            return self._best_turns.step(conn)

    @contextmanager
    def _masking(self, conn: Connection, turns: int) -> Iterator[None]:
        """Turns masked the usual way (those in_place.py does not write) owe what a large forget
        owes: they are written with FTS5's secure-delete off (on, one turn's update rewrites a
        page of the index for each of its words: up to 400 ms at 100k turns, the write lock
        held), and the scrub rewrites the index once the re-scan is done."""
        quiet = self._forgetting.secure_delete
        if quiet:
            conn.exec_driver_sql(fts.secure_delete_statement(on=False))
        yield
        if quiet:
            conn.exec_driver_sql(fts.secure_delete_statement(on=True))
        self._forgetting.owe_scrub(conn, at_once=False)

    def rescan_due(self) -> bool:
        return self._rescan.due()

    def rescan_pending(self) -> bool:
        return self._rescan.pending()

    def rescan_step(self, writes: AbstractContextManager[object]) -> Step:
        began = time.monotonic()
        done = self._rescan.step(writes)
        self._merge_new_segments(writes)
        self._rescan_checkpoint(time.monotonic() - began)
        return done

    def _rescan_checkpoint(self, worked: float) -> None:
        """Copy the WAL back, without blocking writers, after RESCAN_CHECKPOINT_EVERY_SECONDS
        of re-scan steps (their commits do not)."""
        self._rescan_unsynced += worked
        if self._rescan_unsynced >= RESCAN_CHECKPOINT_EVERY_SECONDS:
            self._forgetting.checkpoint()
            self._rescan_unsynced = 0.0

    def _merge_new_segments(self, writes: AbstractContextManager[object]) -> None:
        """Merge a few pages of the index after a re-scan's step (merges.py): each step's commit
        adds a segment, and left alone FTS5 merges a level's 256 inside whichever commit comes
        then."""
        if not self.full_text:
            return
        with writes, self._rescan_writer.begin() as conn:
            merges.after_rescan_step(conn)

    def rescan_left(self) -> int:
        return self._rescan.left()

    def stats(self, said: Messages = ENGLISH) -> Stats:
        try:
            counted = stats.counts(self.engine)
        except DatabaseError as exc:
            if not doctor.is_damage(exc):
                raise
            raise DamagedDatabase(doctor.damage_reason(exc), doctor.RECOVER_HINT) from exc
        problems = doctor.page_problems(self.engine)
        return replace(
            counted,
            database_bytes=self._bytes(),
            spooled=self._forgetting.spool.count(),
            damaged_pages=tuple(problems),
            damage=doctor.damage_sentence(problems, said) if problems else None,
        )

    def _bytes(self) -> int:
        """The file's size with its log, and its spool's."""
        if self._path is None:
            return 0
        files = [
            Path(f"{database}{end}")
            for database in (self._path, spool_file(self._path))
            for end in ("", "-wal", "-shm")
        ]
        return sum(path.stat().st_size for path in files if path.exists())

    def doctor(self, repair: bool, writable: bool, said: Messages = ENGLISH) -> DoctorReport:
        return doctor.examine(self.engine, self.full_text, repair, writable, said)

    def compact(self, said: Messages = ENGLISH) -> str:
        if not self.full_text:
            return ""
        with self.engine.connect() as conn:
            before = fts_levels.segment_count(conn)
        while self._merge(CALLER_STEP_PAGES, whole=True):
            pass
        self._forgetting.checkpoint()
        with self.engine.connect() as conn:
            after = fts_levels.segment_count(conn)
        return doctor.merged(before, after, said)

    def delete_damaged(self) -> DeletedCopies | None:
        if self._path is None:
            return None
        deleted, freed = damaged.delete_damaged(self._path)
        return DeletedCopies(tuple(deleted), freed)

    def recover(self, let_go: Callable[[], None]) -> Recovery:
        if self._path is None:
            return Recovery(Recovered.NO_FILE)
        if not doctor.table_problems(self.engine):
            return Recovery(Recovered.SOUND)
        let_go()
        salvaged, kept = recovery.recover_in_place(self._path)
        return Recovery(
            Recovered.RECOVERED,
            turns=salvaged.copied["turns"],
            marks=salvaged.copied["forgotten_sessions"],
            lost_turns=tuple(salvaged.unreadable["turns"]),
            marks_lost=bool(salvaged.unreadable["forgotten_sessions"]),
            database=self._path,
            kept=kept,
        )

    def close(self) -> None:
        self.engine.dispose()

"""The steps of a large forget's owed work (SqliteScrub), each its own short transaction: a batch
of turns deleted, some pages of the full-text index rewritten (then the pages that rewrite left
free zeroed, zeroing.py), or the final checkpoint that cuts the WAL to zero. Between two steps
the writers waiting on the lock are let through (writers.py) and the spooled turns move in
(spool.py). The package's __init__ tells the whole story.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, text

from history.store import owed
from history.store.owed import ScrubState
from history.store.rows import chunks
from history.store.sqlite import fts, in_place, merges
from history.store.sqlite.forgetting import blanking, checkpoints, zeroing
from history.store.sqlite.forgetting.spool import Spool
from history.store.sqlite.forgetting.writers import WaitingWriters

# What one step may hold the write lock for. A record arriving during a step waits for the rest
# of it: writers of this package announce themselves (writers.py), and between two steps the
# forget waits until those waiting are through, for at most LET_IN_SECONDS.
STEP_SECONDS = 0.04
SPOOLED_STEP_SECONDS = 0.25
LET_IN_SECONDS = 1.0
# Writers that do not announce themselves (another program, an older recall) are let in by a
# blind pause now and then: their busy handler polls every 50-100 ms once it has waited 128 ms,
# so they wait at most about BLIND_EVERY_SECONDS.
BLIND_EVERY_SECONDS, BLIND_PAUSE_SECONDS = 2.0, 0.1
# Where no writer can be seen, a pause after every step. A writer waiting on the lock polls it
# 1, 3, 8, 18, 33, 53, 78, 103 and 128 ms after it began (SQLite's busy handler): any pause of
# 25 ms that starts within its first 100 ms lets it in.
PAUSE_SECONDS = 0.025
# The WAL is copied back into the database (a passive checkpoint, which takes no write lock)
# after this much step work: every step would pay the checkpoint's syncs, never would leave the
# final, lock-holding checkpoint a WAL as large as the whole rewrite to copy.
CHECKPOINT_EVERY_SECONDS = 0.5
FIRST_BATCH_TURNS = 25
FIRST_MERGE_PAGES = 32

_NEXT_WORK = text(
    "SELECT id, session_id, project, asked_before FROM forget_work ORDER BY id LIMIT 1"
)
# An expiry's row (asked_before set) deletes only the turns asked before then; both times are
# stored in the same text form, so they compare as text.
_DOOMED_IDS = text(
    "SELECT id FROM turns WHERE session_id = :session"
    " AND (:project IS NULL OR project = :project)"
    " AND (:before IS NULL OR asked_at < :before) LIMIT :n"
)
_WORK_DONE = text("DELETE FROM forget_work WHERE id = :id")


class Work(enum.Enum):
    """What a step of the owed work did."""

    TURNS = "a batch of turns deleted"
    PAGES = "pages of the full-text index rewritten, or free pages zeroed"


@dataclass
class StepSizes:
    """Batch sizes that adapt to this machine and this file, so a step takes STEP_SECONDS."""

    turns: int = FIRST_BATCH_TURNS
    pages: int = FIRST_MERGE_PAGES

    @staticmethod
    def adapted(size: int, elapsed: float, least: int, target: float = STEP_SECONDS) -> int:
        scale = min(2.0, max(0.25, target / max(elapsed, 1e-4)))
        return max(least, int(size * scale))


class SqliteScrub:
    def __init__(
        self,
        writer: Engine,
        reader: Engine,
        full_text: bool,
        secure_delete: bool,
        writers: WaitingWriters,
        spool: Spool,
    ) -> None:
        self._writer = writer  # unannounced: the writers it waits for are the others
        self._reader = reader  # what checkpoints go through
        self.full_text = full_text
        self.secure_delete = secure_delete
        self.writers = writers
        self.spool = spool
        self.step_seconds = STEP_SECONDS if spool.path is None else SPOOLED_STEP_SECONDS
        self._sizes: dict[float, StepSizes] = {}  # learnt for each length of step
        self.pause = PAUSE_SECONDS
        self._unseen = 0.0  # step work since writers that cannot be seen were let in
        self._unsynced = 0.0  # step work since the last checkpoint

    @property
    def sizes(self) -> StepSizes:
        """The batch sizes that make a step take `step_seconds` here."""
        return self._sizes.setdefault(self.step_seconds, StepSizes())

    @contextmanager
    def paced(self, seconds: float) -> Iterator[None]:
        """Steps of at most about `seconds` for the length of the block: the upkeep's, which
        runs while other processes may record (a forget's own steps may be longer, a record
        that waits on them going to the spool)."""
        kept = self.step_seconds
        self.step_seconds = min(kept, seconds)
        try:
            yield
        finally:
            self.step_seconds = kept

    def between_steps(self) -> None:
        """Let the writers waiting on the lock through; now and then copy the WAL back."""
        started = time.monotonic()
        self.move_spooled()
        if self._unsynced >= CHECKPOINT_EVERY_SECONDS:
            checkpoints.trim(self._reader)
            self._unsynced = 0.0
        if self.writers.let_in(LET_IN_SECONDS) is None:  # writers cannot be seen here
            time.sleep(max(0.0, self.pause - (time.monotonic() - started)))
        elif self._unseen >= BLIND_EVERY_SECONDS:
            time.sleep(BLIND_PAUSE_SECONDS)
            self._unseen = 0.0

    def move_spooled(self) -> int:
        """Move the turns spooled meanwhile into the database, in a short transaction."""
        if not self.spool.count():
            return 0
        with self.spool.moving() as move, self._writer.begin() as conn:
            return move(conn)

    def delete_step(self) -> bool:
        """Delete a batch of the turns `forget_work` lists; False when none were left."""
        began = time.monotonic()
        with self._writer.begin() as conn:
            deleted = self._delete_batch(conn)
        self._adapt(Work.TURNS, began)  # the commit included: FTS5 writes its segment then
        return deleted

    def step(self) -> ScrubState:
        """One step of what is owed: a batch of turns, some pages of the index rewrite, or the
        final checkpoint (which never waits for a reader: "blocked" then)."""
        began = time.monotonic()
        with self._writer.begin() as conn:
            row = owed.scrub(conn)
            if row is None:
                return "done"
            did = self._work(conn, row)
            owed_at = row.owed_at
        if did is not None:
            self._adapt(did, began)
            return "more"
        if not checkpoints.truncate(self._reader):
            return "blocked"
        # A turn spooled until the commit moves in here; one spooled after it sees nothing owed.
        with self.spool.moving(scrub=True) as move, self._writer.begin() as conn:
            move(conn)
            owed.settle(conn, owed_at)
        return "done"

    def _work(self, conn: Connection, row: owed.Owed) -> Work | None:
        """A batch of turns, else some pages of the index rewrite; None when neither is left."""
        if self._delete_batch(conn):
            return Work.TURNS
        if not (row.rewrite_index and self.full_text):
            return None
        if self._rewrite_step(conn, started=row.rewriting):
            return Work.PAGES
        owed.set_rewrite(conn, rewrite_index=False, rewriting=False)
        in_place.rewrite_ended(conn)
        return None

    def _delete_batch(self, conn: Connection) -> bool:
        """Delete a batch of the turns `forget_work` lists, conversation after conversation;
        False when there were none left. An expiry's turns are emptied first (blanking.py)."""
        if blanking.empty_step(conn, self.sizes.turns, self.secure_delete):
            return True
        left = self.sizes.turns
        secure_delete_off = False
        while left > 0:
            work = conn.execute(_NEXT_WORK).first()
            if work is None:
                break
            found = {
                "session": work.session_id,
                "project": work.project,
                "before": work.asked_before,
                "n": left,
            }
            ids = list(conn.execute(_DOOMED_IDS, found).scalars())
            if ids and self.secure_delete and not secure_delete_off:
                conn.exec_driver_sql(fts.secure_delete_statement(on=False))
                secure_delete_off = True
            for chunk in chunks(ids):
                marks = ", ".join("?" * len(chunk))
                conn.exec_driver_sql(f"DELETE FROM turns WHERE id IN ({marks})", tuple(chunk))
            left -= len(ids)
            if left > 0:  # fewer than asked: this conversation is done
                conn.execute(_WORK_DONE, {"id": work.id})
        if secure_delete_off:
            conn.exec_driver_sql(fts.secure_delete_statement(on=True))
        return left < self.sizes.turns

    def _adapt(self, did: Work, began: float) -> None:
        elapsed = time.monotonic() - began
        self._unseen += elapsed
        self._unsynced += elapsed
        # A step that ran long has pushed a waiting writer's busy handler to polling every 50 to
        # 100 ms: a pause as long as the step still lets it in.
        self.pause = max(PAUSE_SECONDS, elapsed)
        target = self.step_seconds
        if did is Work.TURNS:
            self.sizes.turns = StepSizes.adapted(self.sizes.turns, elapsed, 10, target)
        else:
            self.sizes.pages = StepSizes.adapted(self.sizes.pages, elapsed, 16, target)

    def _rewrite_step(self, conn: Connection, started: bool) -> bool:
        """Merge some pages of the index's rewrite; False once it is complete. The first step
        (a negative page count) gathers every segment into one merge, FTS5's incremental
        `optimize`; later steps carry that merge on (or first merge new small segments), and
        each merge drops the rows whose deletion it meets. When a step has nothing left to
        merge, no segment older than the forget remains."""
        pages = self.sizes.pages
        with zeroing.freeing_fast(conn):
            changes = merges.merged(conn, pages if started else -pages)
        if not started:
            owed.set_rewrite(conn, rewrite_index=True, rewriting=True)
            in_place.rewrite_began(conn)
            return True
        if changes >= merges.WORKED:
            return True
        return zeroing.zero_step(conn, pages)

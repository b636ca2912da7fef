"""Forgetting on SQLite in steps that each hold the write lock briefly, so a live agent's
records get through a forget of any size.

A small forget deletes its turns in one transaction, FTS5's secure-delete scrubbing each row from
the full-text index (a few ms a row). A large one first tombstones its conversations and lists
them in `forget_work` (one short transaction: search hides them all from then on), then deletes
their turns in batches with secure-delete off, which leaves their words in the index's old
segments: the owed scrub then rewrites the index, a few hundred pages a step, and finally copies
the WAL back into the database and cuts it to zero. Each step is its own transaction; every
piece of what is owed is in the database, so any process resumes it after a crash.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, text

from history.store import owed
from history.store.owed import ScrubState
from history.store.sqlite import fts

# What one step may hold the write lock for: a record arriving meanwhile waits about this long.
STEP_SECONDS = 0.03
FIRST_BATCH_TURNS = 200
FIRST_MERGE_PAGES = 200

_DOOMED_IDS = text(
    "SELECT t.id FROM forget_work AS w JOIN turns AS t ON t.session_id = w.session_id"
    " AND (w.project IS NULL OR t.project = w.project) LIMIT :n"
)


@dataclass
class StepSizes:
    """Batch sizes that adapt to this machine and this file, so a step takes STEP_SECONDS."""

    turns: int = FIRST_BATCH_TURNS
    pages: int = FIRST_MERGE_PAGES

    @staticmethod
    def adapted(size: int, elapsed: float, least: int) -> int:
        scale = min(2.0, max(0.25, STEP_SECONDS / max(elapsed, 1e-4)))
        return max(least, int(size * scale))


class SqliteScrub:
    def __init__(self, writer: Engine, full_text: bool, secure_delete: bool) -> None:
        self._writer = writer
        self.full_text = full_text
        self.secure_delete = secure_delete
        self.sizes = StepSizes()
        # How long the last step held the write lock: the pause after it, so that writers
        # waiting on the lock (their busy handler polls) find it free.
        self.pause = 0.0

    def delete_step(self) -> bool:
        """Delete a batch of the turns `forget_work` lists; False when none were left."""
        with self._writer.begin() as conn:
            return self._delete_batch(conn)

    def step(self, checkpoint_truncate: Callable[[], bool]) -> ScrubState:
        """One step of what is owed: a batch of turns, some pages of the index rewrite, or the
        final checkpoint (which never waits for a reader: "blocked" then)."""
        with self._writer.begin() as conn:
            row = owed.scrub(conn)
            if row is None:
                return "done"
            if self._delete_batch(conn):
                return "more"
            if row.rewrite_index and self.full_text:
                if self._rewrite_step(conn, started=row.rewriting):
                    return "more"
                owed.set_rewrite(conn, rewrite_index=False, rewriting=False)
            owed_at = row.owed_at
        if not checkpoint_truncate():
            return "blocked"
        with self._writer.begin() as conn:
            owed.settle(conn, owed_at)
        return "done"

    def _delete_batch(self, conn: Connection) -> bool:
        """Delete a batch of the turns `forget_work` lists; False when there were none left."""
        started = time.monotonic()
        ids = list(conn.execute(_DOOMED_IDS, {"n": self.sizes.turns}).scalars())
        if not ids:
            owed.clear_work(conn)
            return False
        if self.secure_delete:
            conn.exec_driver_sql(fts.secure_delete_statement(on=False))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            conn.exec_driver_sql(f"DELETE FROM turns WHERE id IN ({marks})", tuple(chunk))
        if self.secure_delete:
            conn.exec_driver_sql(fts.secure_delete_statement(on=True))
        if len(ids) < self.sizes.turns:
            owed.clear_work(conn)
        self.pause = time.monotonic() - started
        self.sizes.turns = StepSizes.adapted(self.sizes.turns, self.pause, 10)
        return True

    def _rewrite_step(self, conn: Connection, started: bool) -> bool:
        """Merge some pages of the index's rewrite; False once it is complete. The first step
        (a negative page count) gathers every segment into one merge, FTS5's incremental
        `optimize`; later steps carry that merge on (or first merge new small segments), and
        each merge drops the rows whose deletion it meets. When a step has nothing left to
        merge, no segment older than the forget remains."""
        began = time.monotonic()
        before = conn.exec_driver_sql("SELECT total_changes()").scalar_one()
        pages = self.sizes.pages
        conn.exec_driver_sql(fts.merge_statement(pages if started else -pages))
        changes = conn.exec_driver_sql("SELECT total_changes()").scalar_one() - before
        self.pause = time.monotonic() - began
        self.sizes.pages = StepSizes.adapted(pages, self.pause, 16)
        if not started:
            owed.set_rewrite(conn, rewrite_index=True, rewriting=True)
            return True
        return bool(changes >= 2)  # FTS5's documented sign that the merge did some work

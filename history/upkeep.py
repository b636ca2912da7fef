"""Index upkeep off the recording path: on SQLite, merging FTS5's segments and checkpointing the
WAL; on PostgreSQL, merging GIN's pending list and refreshing statistics. This thread runs the
steps; what a step does is the maintenance port's (history/store/maintenance.py, `step`).

Every commit adds a small segment to the full-text index. Left to itself, FTS5 merges segments
inside whichever commit crosses its next 64 pages written, 64 pages per level of the index (about
40 ms at a million turns, once every ~50 one-turn records), and SQLite copies the WAL back into
the database inside whichever commit crosses 1,000 pages (about 8 ms). A live agent's `record`
would pay both at random. Migration 0005 turns FTS5's automatic merging off and the connections
checkpoint only when the WAL is large; this thread does that work in small steps once writes
have paused, each step its own short transaction.

A forget's owed work (history/store/owed.py) comes first; turns past their retention
(history/retention.py) are listed as such work by the index's step, once a minute at most.
The work is in the database, so the thread also looks for it every WATCH_SECONDS, without a
write of its own, in the service (`watch`) and in any process whose own scrub a reader held
back (`retry_later`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

# Writes must have paused this long before upkeep starts: a burst is not slowed by it.
QUIET_SECONDS = 0.25
# Pages merged per step in the thread (~2 ms: what a record arriving during a step may wait),
# and when a caller asked for the upkeep and waits for it (fewer, cheaper steps).
THREAD_STEP_PAGES = 32
CALLER_STEP_PAGES = 1024
# How often a watching thread looks for owed forget work when nothing else wakes it.
WATCH_SECONDS = 1.0


class Upkeep:
    """Runs `step(pages)` (True: there is more to do) in a thread once writes have paused."""

    def __init__(self, step: Callable[[int], bool], owed: Callable[[], bool] = bool) -> None:
        self._step = step
        self._owed = owed
        self._watch_seconds: float | None = None
        self._quiet_seconds = QUIET_SECONDS
        self._last_write = 0.0
        self._due = threading.Event()
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        # One step at a time in a process: the thread's step and a caller's own owed work (a
        # forget's scrub) would otherwise hold each other's final checkpoint back.
        self._stepping = threading.RLock()

    def exclusive(self) -> threading.RLock:
        """Held, no step of this upkeep runs (the one under way finishes first)."""
        return self._stepping

    @property
    def due(self) -> bool:
        """Writes happened since upkeep last finished."""
        return self._due.is_set()

    def wrote(self) -> None:
        """A write committed: upkeep is due once writes pause."""
        self._last_write = time.monotonic()
        self._due.set()
        self._start()

    def watch(self, seconds: float = WATCH_SECONDS) -> None:
        """Look for owed work every `seconds` from now on, writes or not."""
        self._watch_seconds = seconds
        self._start()

    def retry_later(self) -> None:
        """Owed work waits for a reader: look for it again every WATCH_SECONDS."""
        if self._watch_seconds is None:
            self.watch()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._closing.is_set():
                self._thread = threading.Thread(target=self._run, name="recall-upkeep", daemon=True)
                self._thread.start()

    def run_now(self, seconds: float | None = None, pages: int = CALLER_STEP_PAGES) -> bool:
        """Do the upkeep in this thread, for at most `seconds` (None: until done), in steps of
        `pages` (a caller's own, by default: it waits for the upkeep). True when nothing is
        left."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while deadline is None or time.monotonic() < deadline:
            more = self._safe_step(pages)
            if more is None:
                return False
            if not more:
                self._due.clear()
                return not self._owed()  # owed still: a reader holds the scrub back
        return False

    def close(self) -> None:
        """Stop the thread; a step under way finishes first."""
        self._closing.set()
        self._due.set()
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while not self._closing.is_set():
            if not self._due.wait(self._watch_seconds):
                if not self._owed():
                    continue
                self._due.set()
            if self._closing.is_set():
                break
            quiet = time.monotonic() - self._last_write
            if quiet < self._quiet_seconds:
                self._closing.wait(self._quiet_seconds - quiet)
                continue
            self._due.clear()
            while not self._closing.is_set() and self._safe_step(THREAD_STEP_PAGES):
                if time.monotonic() - self._last_write < self._quiet_seconds:
                    self._due.set()  # writes resumed: wait for the next pause
                    break

    def _safe_step(self, pages: int) -> bool | None:
        """The step's answer, or None when it failed (logged: upkeep never raises)."""
        try:
            with self._stepping:
                return self._step(pages)
        except Exception as exc:
            log.warning("index upkeep failed: %s", type(exc).__name__)
            return None

"""Writers waiting for the write lock, made visible to a forget that works in steps.

SQLite gives a writer that finds the lock taken no place in a queue: it sleeps and tries again
(after 1, 3, 8, 18, 33, 53, 78, 103, 128 ms, then every 50-100 ms), and the holder cannot tell
that it waits. So every write transaction of this package holds a shared `flock` on a file beside
the database, `<name>-writers`, from just before its BEGIN IMMEDIATE until its commit or
rollback. A large forget (steps.py) asks for the exclusive lock between two steps: refused
means a writer is waiting or writing, and the forget waits until it is done, instead of pausing a
fixed time after every step for writers it cannot see. Where the file cannot be made (a read-only
folder, a platform without `flock`), nothing is announced and the forget pauses blindly.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: nothing is announced
    fcntl = None  # type: ignore[assignment]

SUFFIX = "-writers"
# How often a forget looks again whether the writers it let in are done.
POLL_SECONDS = 0.001
# How long it waits while a writer's lock has outlasted its limit once (as a blind pause would).
STUCK_SECONDS = 0.025


def writers_file(database: Path) -> Path:
    return database.with_name(database.name + SUFFIX)


def announce(database: Path | None) -> int | None:
    """Hold a shared lock for a write transaction about to begin; the descriptor to pass to
    `done`, or None when nothing could be announced. Never waits long: the exclusive lock is
    only ever held for an instant, to look."""
    fd = _open(database)
    if fd is None:
        return None
    for _ in range(100):
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            time.sleep(POLL_SECONDS)  # a forget looking: it lets go at once
        except OSError:
            break
    os.close(fd)
    return None


def done(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases its lock


class WaitingWriters:
    """The forget's side: whether announced writers wait, and letting them through."""

    def __init__(self, database: Path | None) -> None:
        self._database = database
        self._held_past_limit = False

    def let_in(self, limit: float) -> bool | None:
        """Wait until no announced writer waits or writes, for at most `limit` seconds: True
        when one did (and has been let in), False when none did, None when writers cannot be
        seen here. Once a lock was still held at the limit (a long import batch, or a process
        stopped in its transaction), later calls wait at most STUCK_SECONDS until it is let go."""
        fd = _open(self._database)
        if fd is None:
            return None
        try:
            deadline = time.monotonic() + (STUCK_SECONDS if self._held_past_limit else limit)
            waited = False
            while not _try_exclusive(fd):
                waited = True
                if time.monotonic() >= deadline:
                    self._held_past_limit = True  # the forget's next step waits on SQLite's lock
                    return True
                time.sleep(POLL_SECONDS)
            self._held_past_limit = False
            return waited
        finally:
            os.close(fd)


def _open(database: Path | None) -> int | None:
    if database is None or fcntl is None:
        return None
    try:
        return os.open(writers_file(database), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return None


def _try_exclusive(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return True  # flock unsupported here after all: nothing to wait for
    return True

"""The outbox: turns the service could not take yet, one file a turn under `<home>/outbox`.

A turn is written whole to a hidden draft and renamed into place, so two processes adding at
once never mix their bytes, and one killed while writing leaves a draft (swept once it is an
hour old), never half a turn. A file is named by the time it was queued and goes in that order:
a later version of a turn is sent after the earlier one, and wins. One sender at a time holds
the outbox's lock, so an older version cannot overtake a newer one.

The folder is 0700 and every file 0600; what they hold was redacted before it was written. A
turn the service refused is moved to `refused/` with the reason, where `recall push` tells of it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from history.home import ensure_private_dir

try:
    import fcntl
except ImportError:  # Windows: no lock; the service's turn ids keep a repeat harmless
    fcntl = None  # type: ignore[assignment]

FOLDER, REFUSED = "outbox", "refused"
SUFFIX, DRAFT, LOCK = ".json", ".draft-", ".lock"
DRAFT_SECONDS = 3600.0  # a draft this old was left by a process that was killed
LOCK_POLL_SECONDS = 0.05
_sequence = itertools.count()


class Outbox:
    def __init__(self, home: Path, clock: Callable[[], float] = time.time) -> None:
        self.folder = home / FOLDER
        self.refused_folder = self.folder / REFUSED
        self.clock = clock

    def put(self, body: bytes) -> Path:
        """Queue a body (already redacted); durable once this returns."""
        name = f"{int(self.clock() * 1e9):020d}-{os.getpid()}-{next(_sequence):06d}{SUFFIX}"
        return self._write(self.folder, name, body)

    def waiting(self) -> list[Path]:
        """The queued turns, oldest first."""
        return _listed(self.folder)

    def read(self, path: Path) -> bytes | None:
        """A queued body; None when another sender has just delivered it."""
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def remove(self, path: Path) -> None:
        path.unlink(missing_ok=True)

    def refuse(self, body: bytes, status: int | None, reason: str, path: Path | None) -> Path:
        """Keep a refused turn aside with why, and take it out of the queue."""
        try:
            turn: object = json.loads(body)
        except ValueError:
            turn = body.decode("utf-8", "replace")
        record = {
            "refused_at": datetime.fromtimestamp(self.clock(), UTC).isoformat(),
            "status": status,
            "reason": reason,
            "turn": turn,
        }
        name = path.name if path is not None else f"{int(self.clock() * 1e9):020d}{SUFFIX}"
        kept = self._write(self.refused_folder, name, json.dumps(record).encode())
        if path is not None:
            self.remove(path)
        return kept

    def refused(self) -> list[Path]:
        return _listed(self.refused_folder)

    def requeue_refused(self) -> int:
        """Every refused turn back in the queue (the service or the key was fixed)."""
        count = 0
        for path in self.refused():
            with contextlib.suppress(OSError, ValueError, AttributeError):
                turn = json.loads(path.read_bytes())["turn"]
                self._write(self.folder, path.name, json.dumps(turn).encode())
                path.unlink()
                count += 1
        return count

    def sweep_drafts(self) -> None:
        for folder in (self.folder, self.refused_folder):
            with contextlib.suppress(OSError):
                for draft in folder.glob(DRAFT + "*"):
                    with contextlib.suppress(OSError):
                        if self.clock() - draft.stat().st_mtime > DRAFT_SECONDS:
                            draft.unlink()

    @contextlib.contextmanager
    def lock(self, wait: float) -> Iterator[bool]:
        """The sender's lock, waited for up to `wait` seconds: yields whether it is held."""
        if fcntl is None:
            yield True
            return
        ensure_private_dir(self.folder)
        fd = os.open(self.folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            yield _flock(fd, time.monotonic() + wait)
        finally:
            os.close(fd)  # releases the lock

    def _write(self, folder: Path, name: str, content: bytes) -> Path:
        ensure_private_dir(folder)
        draft = folder / f"{DRAFT}{name}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(content)
                out.flush()
                os.fsync(out.fileno())
            final = folder / name
            os.replace(draft, final)
        except BaseException:
            draft.unlink(missing_ok=True)
            raise
        _sync_folder(folder)
        return final


def _listed(folder: Path) -> list[Path]:
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.is_file())
    except FileNotFoundError:
        return []
    return [folder / name for name in names if name.endswith(SUFFIX) and name[0] != "."]


def _flock(fd: int, deadline: float) -> bool:
    assert fcntl is not None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(LOCK_POLL_SECONDS)


def _sync_folder(folder: Path) -> None:
    """The rename itself made durable (POSIX; elsewhere a folder cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

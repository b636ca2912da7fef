"""Copying the WAL back into the database: now and then between a forget's steps, and at its end
cutting the log to zero, so no frame of a forgotten turn is left in the -wal file."""

from __future__ import annotations

import os

from sqlalchemy import Engine

from history.store.sqlite.engine import sqlite_path

# The final checkpoint waits this long for the lock or for readers, not the busy timeout: a
# record queued behind it would wait as long.
CHECKPOINT_WAIT_MS = 20
# Passive checkpoints run before the truncating one until the WAL is all copied back, at most
# this many: what the truncating one copies and syncs, it does with writers blocked (33-55 ms at
# 100k turns, 178 ms at 1M when one passive checkpoint had left frames to it).
MOST_PASSIVE_ROUNDS = 4


# A WAL larger than this, all copied back, is cut to zero between steps: cutting a file costs
# by its size (30 ms for 19 MB on a loaded host, up to 175 ms at the scrub's end), and the WAL
# keeps the largest size it ever reached until it is cut.
TRIM_BYTES = 8 * 1024 * 1024


def trim(engine: Engine) -> bool:
    """A passive checkpoint, then, when it copied everything back and the WAL has grown past
    TRIM_BYTES, cut it to zero (never waiting: a reader or writer in the way leaves it for the
    next time). False when a reader held some frames back."""
    if not caught_up(engine):
        return False
    if _wal_bytes(engine) > TRIM_BYTES:
        _checkpoint(engine, "TRUNCATE", wait=False)
    return True


def _wal_bytes(engine: Engine) -> int:
    path = sqlite_path(engine.url.render_as_string(hide_password=False))
    if path is None:
        return 0
    try:
        return os.stat(f"{path}-wal").st_size
    except OSError:
        return 0


def truncate(engine: Engine) -> bool:
    """Cut the WAL to zero; first copy it all back without blocking writers (passive rounds
    until nothing is left to copy, the frames other writers append meanwhile included), so the
    truncating checkpoint, which blocks them, only cuts the file. False when a reader (or a
    writer) was in the way."""
    for _ in range(MOST_PASSIVE_ROUNDS):
        if caught_up(engine):
            break
    return _checkpoint(engine, "TRUNCATE", wait=False)


def caught_up(engine: Engine) -> bool:
    """A passive checkpoint; True when it left no frame of the WAL uncopied."""
    busy, logged, copied = _run(engine, "PASSIVE", wait=True)
    return busy == 0 and logged == copied


def _checkpoint(engine: Engine, mode: str, wait: bool = True) -> bool:
    return _run(engine, mode, wait)[0] == 0


def _run(engine: Engine, mode: str, wait: bool) -> tuple[int, int, int]:
    """Without `wait`, a reader or writer in the way fails it after CHECKPOINT_WAIT_MS instead
    of the busy timeout. SQLite's three numbers: busy, frames in the WAL, frames copied."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        if not wait:
            timeout = cursor.execute("PRAGMA busy_timeout").fetchone()[0]
            cursor.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
        try:
            busy, logged, copied = cursor.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        finally:
            if not wait:
                cursor.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        cursor.close()
    finally:
        raw.close()
    return int(busy), int(logged), int(copied)

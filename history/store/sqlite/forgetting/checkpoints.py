"""Copying the WAL back into the database: now and then between a forget's steps, and at its end
cutting the log to zero, so no frame of a forgotten turn is left in the -wal file."""

from __future__ import annotations

from sqlalchemy import Engine

# The final checkpoint waits this long for the lock or for readers, not the busy timeout: a
# record queued behind it would wait as long.
CHECKPOINT_WAIT_MS = 20


def passive(engine: Engine) -> bool:
    """Copy what readers allow, without blocking writers; False when a reader held some back."""
    return _checkpoint(engine, "PASSIVE")


def truncate(engine: Engine) -> bool:
    """Cut the WAL to zero; first copy what readers allow without blocking writers, so the
    truncating checkpoint, which blocks them, has little left to copy. False when a reader (or
    a writer) was in the way."""
    passive(engine)
    return _checkpoint(engine, "TRUNCATE", wait=False)


def _checkpoint(engine: Engine, mode: str, wait: bool = True) -> bool:
    """Without `wait`, a reader or writer in the way fails it after CHECKPOINT_WAIT_MS instead
    of the busy timeout."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        if not wait:
            timeout = cursor.execute("PRAGMA busy_timeout").fetchone()[0]
            cursor.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
        try:
            busy, _, _ = cursor.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        finally:
            if not wait:
                cursor.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        cursor.close()
    finally:
        raw.close()
    return bool(busy == 0)

"""Damaged copies of a history file: `history.db.corrupt-<UTC time>` (with its -wal and -shm).

Opening moves a file SQLite cannot read aside under that name, and `recall doctor --recover`
keeps the file it recovered from the same way. Such a copy may still hold conversations the
user forgets later, so it is never forgotten about: `recall stats`, `recall doctor` and every
forget name it (history/cli/damaged.py words it), and `recall doctor --delete-damaged` deletes
it.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

MARK = ".corrupt-"
SIDECARS = ("-wal", "-shm")


def damaged_name(database: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return database.with_name(f"{database.name}{MARK}{stamp}")


def move_aside(database: Path, why: str, level: int = logging.WARNING) -> Path:
    """Rename the file (and its -wal and -shm) to a damaged copy; logged with `why`."""
    moved = damaged_name(database)
    for suffix in ("", *SIDECARS):
        source = Path(f"{database}{suffix}")
        if source.exists():
            source.rename(Path(f"{moved}{suffix}"))
    log.log(level, "%s %s: moved aside to %s", database, why, moved.name)
    return moved


def damaged_copies(database: Path) -> list[Path]:
    """The damaged copies beside `database`, oldest first (their -wal and -shm go with them)."""
    try:
        found = database.parent.glob(f"{database.name}{MARK}*")
        return sorted(path for path in found if not path.name.endswith(SIDECARS))
    except OSError:  # a folder that cannot be listed holds nothing we could name
        return []


def delete_damaged(database: Path) -> tuple[list[Path], int]:
    """Delete every damaged copy with its -wal and -shm: the copies deleted, and their bytes."""
    deleted, freed = [], 0
    for copy in damaged_copies(database):
        for suffix in ("", *SIDECARS):
            part = Path(f"{copy}{suffix}")
            if part.exists():
                freed += part.stat().st_size
                part.unlink()
        deleted.append(copy)
    return deleted, freed

"""Where the index lives: `--home`, else `$RECALL_HOME`, else `~/.recall`."""

from __future__ import annotations

import os
from pathlib import Path

DATABASE_NAME = "history.db"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    raw = os.fspath(home) if home is not None else os.environ.get("RECALL_HOME") or "~/.recall"
    return Path(raw).expanduser().resolve()


def database_path(home: str | os.PathLike[str] | None = None) -> Path:
    return resolve_home(home) / DATABASE_NAME


def ensure_private_dir(path: Path) -> None:
    """A history of someone's code conversations is theirs alone: the home is 0700."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)


def ensure_private_file(path: Path) -> None:
    """Create the database file 0600 before SQLite does; its -wal and -shm inherit the mode."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    path.chmod(0o600)

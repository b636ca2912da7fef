"""Where the index lives: `--database-url`, else `$RECALL_DATABASE_URL`, else the home's file
(`--home`, else `$RECALL_HOME`, else `~/.recall`)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

DATABASE_NAME = "history.db"
DATABASE_URL_VARIABLE = "RECALL_DATABASE_URL"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    raw = os.fspath(home) if home is not None else os.environ.get("RECALL_HOME") or "~/.recall"
    return Path(raw).expanduser().resolve()


def database_path(home: str | os.PathLike[str] | None = None) -> Path:
    return resolve_home(home) / DATABASE_NAME


def id_key_path(database: Path) -> Path:
    """Where a database's id key is kept (history/redaction/ids.py), beside it."""
    return database.with_name(database.stem + ".id-key")


def configured_url(database_url: str | None = None) -> str | None:
    """`--database-url`, else `$RECALL_DATABASE_URL`, else None (the home's SQLite file)."""
    return database_url or os.environ.get(DATABASE_URL_VARIABLE) or None


def ensure_private_dir(path: Path) -> None:
    """A history of someone's code conversations is theirs alone: the home is made 0700, and
    one that exists loses what group and others may do (a read-only one stays read-only)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    _private(path)


def ensure_private_file(path: Path) -> None:
    """Create the database file 0600 before SQLite does; its -wal and -shm inherit the mode.
    A file that exists is never opened for writing here: one the user may only read stays so,
    and opens read-only."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        if path.is_dir():  # SQLite would only say "disk I/O error"
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path)) from None
        _private(path)
    else:
        os.close(fd)


def _private(path: Path) -> None:
    """Take group and other permissions away; a file on a read-only mount, or another user's,
    keeps its mode (what it lets through is not ours to change)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        with contextlib.suppress(OSError):
            path.chmod(mode & ~0o077)

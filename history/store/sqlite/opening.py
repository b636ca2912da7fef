"""Opening an index file: migrate it, or move a broken one aside; read-only files still search.

A file that is not a database (or whose schema pages are corrupt) never fails the caller: it is
renamed `history.db.corrupt-<UTC time>` (with its -wal and -shm), logged, and a fresh index
starts in its place (history/store/sqlite/damaged.py finds and removes such copies).

A file the process may not write (its mode, an immutable flag, a read-only mount) opens
read-only: searching works, and the index says it cannot write (`writable`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError

from history.domain import READ_ONLY
from history.home import ensure_private_file
from history.store import migrations
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts
from history.store.sqlite.damaged import move_aside

log = logging.getLogger(__name__)

BROKEN_FILE_ERRORS = ("SQLITE_NOTADB", "SQLITE_CORRUPT")


@dataclass(frozen=True)
class OpenedDatabase:
    engine: Engine
    full_text: bool
    secure_delete: bool
    writable: bool
    full_disk: bool = False  # read because the disk is too full to open it as usual


def open_database(url: str, busy_timeout_ms: int) -> OpenedDatabase:
    opened = _open(url, busy_timeout_ms)
    if opened.full_disk:
        log.warning("%s: the disk holding it is full", READ_ONLY)
    elif not opened.writable:
        log.warning(READ_ONLY)
    return opened


def _open(url: str, busy_timeout_ms: int) -> OpenedDatabase:
    path = sqlite_db.sqlite_path(url)
    if path is not None:
        # A folder made here is the history's home: private, as history_for makes it. One that
        # exists is the user's and keeps its mode.
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        ensure_private_file(path)
    writable = path is None or _writable(path)
    engine = sqlite_db.create_sqlite_engine(url, busy_timeout_ms)
    try:
        return _migrate(engine, writable)
    except DatabaseError as exc:
        engine.dispose()
        if path is not None and is_read_only_error(exc):
            return _open_unchanging(path, busy_timeout_ms)
        if path is not None and is_disk_full_error(exc):
            return _open_on_a_full_disk(path, busy_timeout_ms, exc)
        if path is None or error_name(exc) not in BROKEN_FILE_ERRORS:
            raise
    move_aside(path, "is not a readable history database")
    ensure_private_file(path)
    return _migrate(sqlite_db.create_sqlite_engine(url, busy_timeout_ms), writable=True)


def _writable(path: Path) -> bool:
    """Whether this process may write the file (its mode, an immutable flag, a read-only mount).

    A read-only open leaves its -wal and -shm with the file's mode; once the file may be
    written again, they are given back the write permission they were made without."""
    if not os.access(path, os.W_OK):
        return False
    for suffix in ("-wal", "-shm"):
        sidecar = Path(f"{path}{suffix}")
        if sidecar.exists() and not os.access(sidecar, os.W_OK):
            with contextlib.suppress(OSError):
                sidecar.chmod(0o600)
    return True


def _open_unchanging(path: Path, busy_timeout_ms: int) -> OpenedDatabase:
    """A read-only file whose WAL index (-shm) cannot be made beside it (a read-only folder or
    mount): SQLite reads it as immutable, which needs no -shm. Nothing here can write to it;
    turns a writer elsewhere left in an uncheckpointed -wal are not seen."""
    if Path(f"{path}-wal").is_file() and Path(f"{path}-wal").stat().st_size:
        log.warning("%s has a -wal this process cannot use: its latest turns are not seen", path)
    url = f"sqlite:///file:{quote(str(path))}?mode=ro&immutable=1&uri=true"
    return _migrate(sqlite_db.create_sqlite_engine(url, busy_timeout_ms), writable=False)


def _open_on_a_full_disk(path: Path, busy_timeout_ms: int, error: DatabaseError) -> OpenedDatabase:
    """A disk too full for the WAL index (-shm) SQLite makes on opening: the file is read with
    the WAL index in memory instead (an exclusive lock, one use at a time), the turns its -wal
    holds included. Writing waits until space is freed and the history is opened again."""
    url = sqlite_db.database_url(path)
    engine = sqlite_db.create_sqlite_engine(url, busy_timeout_ms, exclusive=True)
    try:
        opened = _migrate(engine, writable=False)
    except DatabaseError:
        engine.dispose()
        raise error from None
    return replace(opened, full_disk=True)


def is_disk_full_error(exc: DatabaseError) -> bool:
    return error_name(exc).startswith(("SQLITE_FULL", "SQLITE_IOERR"))


def is_read_only_error(exc: DatabaseError) -> bool:
    return error_name(exc).startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN"))


def _migrate(engine: Engine, writable: bool) -> OpenedDatabase:
    if writable:
        writable = _prepare_for_writing(engine)
    with engine.connect() as conn:
        full_text = fts.fts5_available(conn) and fts.fts_exists(conn)
        secure_delete = full_text and fts.secure_delete_supported(conn)
    return OpenedDatabase(engine, full_text, secure_delete, writable)


def _prepare_for_writing(engine: Engine) -> bool:
    """Migrate to head and turn FTS5's secure-delete on; False when the file proves read-only."""
    try:
        if not migrations.at_head(engine):
            migrations.upgrade(engine)
        with sqlite_db.writer(engine).begin() as conn:
            if _secure_delete_possible(conn) and not fts.secure_delete_enabled(conn):
                conn.exec_driver_sql(fts.secure_delete_statement())
    except OperationalError as exc:
        if not error_name(exc).startswith("SQLITE_READONLY"):
            raise
        return False
    return True


def _secure_delete_possible(conn: Connection) -> bool:
    return fts.fts5_available(conn) and fts.fts_exists(conn) and fts.secure_delete_supported(conn)


def error_name(exc: DatabaseError) -> str:
    return str(getattr(exc.orig, "sqlite_errorname", ""))

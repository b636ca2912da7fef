"""Opening an index file: migrate it, or move a broken one aside; read-only files still search.

A file that is not a database (or whose schema pages are corrupt) never fails the caller: it is
renamed `history.db.corrupt-<UTC time>` (with its -wal and -shm), logged, and a fresh index
starts in its place.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError

from history.home import ensure_private_file
from history.store import migrations
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts

log = logging.getLogger(__name__)

BROKEN_FILE_ERRORS = ("SQLITE_NOTADB", "SQLITE_CORRUPT")


@dataclass(frozen=True)
class OpenedDatabase:
    engine: Engine
    full_text: bool
    secure_delete: bool
    writable: bool


def open_database(url: str, busy_timeout_ms: int) -> OpenedDatabase:
    path = sqlite_db.sqlite_path(url)
    if path is not None:
        # A folder made here is the history's home: private, as history_for makes it. One that
        # exists is the user's and keeps its mode.
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        ensure_private_file(path)
    engine = sqlite_db.create_sqlite_engine(url, busy_timeout_ms)
    try:
        return _migrate(engine)
    except DatabaseError as exc:
        engine.dispose()
        if path is None or error_name(exc) not in BROKEN_FILE_ERRORS:
            raise
    move_aside(path)
    ensure_private_file(path)
    return _migrate(sqlite_db.create_sqlite_engine(url, busy_timeout_ms))


def _migrate(engine: Engine) -> OpenedDatabase:
    writable = True
    try:
        if not migrations.at_head(engine):
            migrations.upgrade(engine)
        with sqlite_db.writer(engine).begin() as conn:
            if _secure_delete_possible(conn) and not fts.secure_delete_enabled(conn):
                conn.exec_driver_sql(fts.secure_delete_statement())
    except OperationalError as exc:
        if error_name(exc) != "SQLITE_READONLY":
            raise
        log.warning("the history database is read-only: searching works, recording does not")
        writable = False
    with engine.connect() as conn:
        full_text = fts.fts5_available(conn) and fts.fts_exists(conn)
        secure_delete = full_text and fts.secure_delete_supported(conn)
    return OpenedDatabase(engine, full_text, secure_delete, writable)


def _secure_delete_possible(conn: Connection) -> bool:
    return fts.fts5_available(conn) and fts.fts_exists(conn) and fts.secure_delete_supported(conn)


def error_name(exc: DatabaseError) -> str:
    return str(getattr(exc.orig, "sqlite_errorname", ""))


def move_aside(path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    moved = path.with_name(f"{path.name}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            source.rename(Path(f"{moved}{suffix}"))
    log.warning("%s is not a readable history database: moved aside to %s", path, moved.name)
    return moved

"""The SQLite engine: the driver, PRAGMAs on connect and explicit BEGIN modes."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import ConnectionPoolEntry, NullPool

from history.store.sqlite import rank_extension, summaries
from history.store.sqlite.connection import (
    BUSY_TIMEOUT_MS,
    READER_CACHE_KIB,
    WAL_AUTOCHECKPOINT_PAGES,
    WRITER_CACHE_KIB,
    set_up,
    sqlite_driver,
)
from history.store.sqlite.forgetting import writers

__all__ = [
    "BUSY_TIMEOUT_MS",
    "READER_CACHE_KIB",
    "WAL_AUTOCHECKPOINT_PAGES",
    "WRITER_CACHE_KIB",
    "create_sqlite_engine",
    "database_url",
    "sqlite_driver",
]


def database_url(target: str | os.PathLike[str]) -> str:
    """A filesystem path becomes an SQLite URL; anything with `://` is taken as a URL."""
    raw = os.fspath(target)
    if "://" in raw:
        return raw
    return f"sqlite:///{Path(raw).expanduser().resolve()}"


def create_sqlite_engine(
    url: str, busy_timeout_ms: int = BUSY_TIMEOUT_MS, exclusive: bool = False
) -> Engine:
    """`exclusive`: each use opens its own connection in EXCLUSIVE locking mode, whose WAL index
    lives in the process's memory instead of the -shm file (opening.py: a full disk), and
    closes it after, so other processes wait at most one use for the lock."""
    engine = create_engine(
        url,
        module=sqlite_driver(),
        # Bound values are turn text: never in an exception message or a log line.
        hide_parameters=True,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        **({"poolclass": NullPool} if exclusive else {}),
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, record: ConnectionPoolEntry) -> None:
        # This module's setting, read at each connect (a test lowers it).
        bulk, ranked = set_up(dbapi_conn, busy_timeout_ms, WAL_AUTOCHECKPOINT_PAGES, exclusive)
        record.info[summaries.IN_BULK_FUNCTION] = bulk
        record.info[rank_extension.FUNCTION] = ranked

    database = sqlite_path(url)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Writers ask for IMMEDIATE so they take the write lock up front and wait on busy_timeout
        # there, instead of failing half way with SQLITE_BUSY on lock upgrade.
        options = conn.get_execution_options()
        mode = options.get("sqlite_begin", "DEFERRED")
        if mode == "IMMEDIATE" and options.get("announced", True):
            conn.info[_ANNOUNCED] = writers.announce(database)  # a forget lets it in
        lock_wait_ms = options.get("lock_wait_ms")
        if not options.get("autocheckpoint", True):
            no_autocheckpoint(conn)
        if mode == "IMMEDIATE":
            conn.exec_driver_sql(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
            conn.connection.info[_WRITER_CACHE] = True
        try:
            if lock_wait_ms is None:
                conn.exec_driver_sql(f"BEGIN {mode}")
            else:  # only the lock is waited for less: the transaction keeps the usual timeout
                conn.exec_driver_sql(f"PRAGMA busy_timeout = {int(lock_wait_ms)}")
                try:
                    conn.exec_driver_sql(f"BEGIN {mode}")
                finally:
                    conn.exec_driver_sql(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        except BaseException:
            _finished(conn)
            raise

    event.listen(engine, "commit", _finished)
    event.listen(engine, "rollback", _finished)

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_conn: sqlite3.Connection | None, record: ConnectionPoolEntry) -> None:
        # A transaction that ended without its commit or rollback event (a connection lost on a
        # disk error and invalidated): a shared lock left held would make a forget wait at
        # every step.
        writers.done(record.info.pop(_ANNOUNCED, None))
        if record.info.pop(_NO_AUTOCHECKPOINT, False) and dbapi_conn is not None:
            dbapi_conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
        if record.info.pop(_WRITER_CACHE, False) and dbapi_conn is not None:
            dbapi_conn.execute(f"PRAGMA cache_size = -{READER_CACHE_KIB}")

    return engine


_ANNOUNCED = "recall_announced_writer"
_NO_AUTOCHECKPOINT = "recall_no_autocheckpoint"
_WRITER_CACHE = "recall_writer_cache"


def no_autocheckpoint(conn: Connection) -> None:
    """This transaction's commit copies no WAL back (a forget does that between its steps,
    where nobody waits for it); the connection's setting comes back when it is returned."""
    conn.exec_driver_sql("PRAGMA wal_autocheckpoint = 0")
    conn.connection.info[_NO_AUTOCHECKPOINT] = True


def _finished(conn: Connection) -> None:
    writers.done(conn.info.pop(_ANNOUNCED, None))


def writer(engine: Engine, announced: bool = True, autocheckpoint: bool = True) -> Engine:
    """The same engine, whose transactions start with BEGIN IMMEDIATE; `announced` to a forget
    working in steps (writers.py), which lets them in between its steps: all but its own.
    Without `autocheckpoint`, a commit never copies the WAL back (a forget checkpoints on its
    own, between steps, where no one waits for it)."""
    return engine.execution_options(
        sqlite_begin="IMMEDIATE", announced=announced, autocheckpoint=autocheckpoint
    )


def lock_waited_out(exc: BaseException) -> bool:
    """The error of a BEGIN IMMEDIATE that gave up waiting for another writer's lock."""
    orig = getattr(exc, "orig", exc)
    return getattr(orig, "sqlite_errorname", "") == "SQLITE_BUSY" or "locked" in str(orig)


def sqlite_path(url: str) -> Path | None:
    """The database file behind a plain SQLite URL; None for memory, `file:` URIs (their own
    open flags decide) and other backends."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    if parsed.query.get("uri") in ("true", "1"):
        return None
    return Path(parsed.database)

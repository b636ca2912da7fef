"""The database a home or a URL names, before (or beside) an index opened on it: what the faces
may ask without knowing its backend. The answers come from history/store/backends.py, imported
only when asked: a face's start-up pays for none of it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from history.home import DATABASE_NAME, configured_url, resolve_home


def target(home: str | os.PathLike[str] | None, database_url: str | None = None) -> str | Path:
    """`database_url` (else `$RECALL_DATABASE_URL`), else the home's file."""
    return configured_url(database_url) or resolve_home(home) / DATABASE_NAME


def where(home: str | os.PathLike[str] | None, database_url: str | None = None) -> str:
    """Where the database is, as a person may be shown it (a server's URL without password)."""
    from history.store import backends

    return backends.shown(target(home, database_url))


def holds_history(home: str | os.PathLike[str] | None, database_url: str | None = None) -> bool:
    """Whether the database held the history's tables before this process opened it."""
    from history.store import backends

    return backends.holds_history(target(home, database_url))


def print_upgrade_sql(home: str | os.PathLike[str] | None, database_url: str | None) -> None:
    """Print the SQL that would upgrade the database to the latest schema."""
    from history.store import backends

    backends.print_upgrade_sql(target(home, database_url))


def on_postgres(home: str | os.PathLike[str] | None, database_url: str | None = None) -> bool:
    """Whether the database is a PostgreSQL server's."""
    from history.store import backends

    return backends.is_postgres(target(home, database_url))


def take_up_pgvector(home: str | os.PathLike[str] | None, database_url: str | None) -> bool:
    """Have PostgreSQL's pgvector find the nearest vectors, installed since the database was
    migrated; whether it does now (history/store/postgres/pgvector.py)."""
    from history.store.postgres.engine import create_postgres_engine
    from history.store.postgres.pgvector import take_up

    engine = create_postgres_engine(str(target(home, database_url)))
    try:
        return take_up(engine)
    finally:
        engine.dispose()


def trouble(error: BaseException) -> tuple[str, str] | None:
    """("unreachable", "") for a database server that could not be reached (or its driver is
    missing), ("damaged", reason) for a damaged file, None for any other error. SQLAlchemy is
    consulted only once something imported it: before that, no error can be one of its."""
    if "sqlalchemy" not in sys.modules:
        return None
    from history.store.errors import trouble as database_trouble

    return database_trouble(error)

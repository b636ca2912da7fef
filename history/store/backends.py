"""Which backend a target names: an SQLAlchemy URL of PostgreSQL opens the PostgreSQL store;
anything else (a path, an SQLite URL) the embedded SQLite file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from history.home import ensure_private_dir, resolve_home
from history.redaction.ids import id_key_path
from history.store import migrations
from history.store.postgres import engine as pg_engine
from history.store.repository import TurnRepository
from history.store.sqlite import engine as sqlite_db

DATABASE_URL_VARIABLE = "RECALL_DATABASE_URL"


@dataclass(frozen=True)
class OpenedStore:
    repository: TurnRepository
    engine: Engine
    full_text: bool
    backend: str  # "sqlite" or "postgresql"
    # Where the key that tags ids which held a secret is kept (history/redaction/ids.py).
    id_key_file: Path | None
    # False for a file this process may only read: searching works, writing is refused.
    writable: bool = True


def is_postgres(target: str | os.PathLike[str]) -> bool:
    return pg_engine.is_postgres_url(os.fspath(target))


def open_store(target: str | os.PathLike[str], busy_timeout_ms: int) -> OpenedStore:
    if is_postgres(target):
        from history.store.postgres.repository import PostgresTurnRepository

        engine = pg_engine.create_postgres_engine(os.fspath(target), busy_timeout_ms)
        try:
            if not migrations.at_head(engine):
                migrations.upgrade(engine)
        except BaseException:
            engine.dispose()
            raise
        key = postgres_id_key(engine)
        return OpenedStore(PostgresTurnRepository(engine), engine, True, "postgresql", key)

    from history.store.sqlite.opening import open_database
    from history.store.sqlite.repository import SqliteTurnRepository

    url = sqlite_db.database_url(target)
    opened = open_database(url, busy_timeout_ms)
    repository = SqliteTurnRepository(opened.engine, opened.full_text, opened.secure_delete)
    path = sqlite_db.sqlite_path(url)
    key = id_key_path(path) if path is not None else None
    return OpenedStore(
        repository, opened.engine, opened.full_text, "sqlite", key, writable=opened.writable
    )


def postgres_id_key(engine: Engine) -> Path | None:
    """A PostgreSQL database's id key, in this machine's home (`postgres-<host>-<port>-<db>`):
    the same for every process here. Machines that share the database each make their own unless
    the file is copied to them (README: Teams)."""
    url = engine.url
    name = "-".join(str(part) for part in (url.host or "local", url.port or 5432, url.database))
    home = resolve_home(None)
    try:
        ensure_private_dir(home)
    except OSError:
        return None
    return (
        home / f"postgres-{''.join(c if c.isalnum() or c in '.-_' else '_' for c in name)}.id-key"
    )


def configured_url(database_url: str | None = None) -> str | None:
    """`--database-url`, else `$RECALL_DATABASE_URL`, else None (the home's SQLite file)."""
    return database_url or os.environ.get(DATABASE_URL_VARIABLE) or None

"""Which backend a target names: an SQLAlchemy URL of PostgreSQL opens the PostgreSQL store;
anything else (a path, an SQLite URL) the embedded SQLite file. The one place that asks."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

from history.home import ensure_private_dir, id_key_path, resolve_home
from history.store import migrations
from history.store.access import AccessRecords, NoAccessRecords
from history.store.maintenance import Maintenance
from history.store.postgres import engine as pg_engine
from history.store.repository import TurnRepository
from history.store.sql_access import SqlAccessRecords
from history.store.sqlite import engine as sqlite_db

# How long a write waits for another writer's lock, unless the opener says otherwise.
BUSY_TIMEOUT_MS = sqlite_db.BUSY_TIMEOUT_MS


@dataclass(frozen=True)
class OpenedStore:
    repository: TurnRepository  # the data port
    maintenance: Maintenance  # the maintenance port
    full_text: bool
    # Where the key that tags ids which held a secret is kept (history/redaction/ids.py).
    id_key_file: Path | None
    # False for a file this process may only read: searching works, writing is refused.
    writable: bool = True
    # The access port: members' keys and the audit trail.
    access: AccessRecords = field(default_factory=NoAccessRecords)


def is_postgres(target: str | os.PathLike[str]) -> bool:
    return pg_engine.is_postgres_url(os.fspath(target))


def open_store(target: str | os.PathLike[str], busy_timeout_ms: int) -> OpenedStore:
    if is_postgres(target):
        from history.store.postgres.maintenance import PostgresMaintenance
        from history.store.postgres.repository import PostgresTurnRepository

        engine = pg_engine.create_postgres_engine(os.fspath(target), busy_timeout_ms)
        try:
            if not migrations.at_head(engine):
                migrations.upgrade(engine)
        except BaseException:
            engine.dispose()
            raise
        key = postgres_id_key(engine)
        searches = pg_engine.create_postgres_engine(os.fspath(target), busy_timeout_ms)
        repository = PostgresTurnRepository(engine, searches)
        access = SqlAccessRecords(engine, engine)
        return OpenedStore(repository, PostgresMaintenance(engine), True, key, access=access)

    from history.store.sqlite.maintenance import SqliteMaintenance
    from history.store.sqlite.opening import open_database
    from history.store.sqlite.repository import SqliteTurnRepository

    url = sqlite_db.database_url(target)
    opened = open_database(url, busy_timeout_ms)
    store = SqliteTurnRepository(opened.engine, opened.full_text, opened.secure_delete)
    maintenance = SqliteMaintenance(opened.engine, opened.full_text, store.forgetting)
    path = sqlite_db.sqlite_path(url)
    key = id_key_path(path) if path is not None else None
    access = SqlAccessRecords(opened.engine, sqlite_db.writer(opened.engine))
    return OpenedStore(
        store, maintenance, opened.full_text, key, writable=opened.writable, access=access
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


def shown(target: str | os.PathLike[str]) -> str:
    """The target as a person may be shown it: a server's URL without its password."""
    if is_postgres(target):
        return pg_engine.display_url(os.fspath(target))
    path = sqlite_db.sqlite_path(sqlite_db.database_url(target))
    return str(path) if path is not None else os.fspath(target)


def holds_history(target: str | os.PathLike[str]) -> bool:
    """Whether the database holds the history's tables already (a new file, or a PostgreSQL
    database never migrated, does not), without creating or migrating anything."""
    if not is_postgres(target):
        path = sqlite_db.sqlite_path(sqlite_db.database_url(target))
        return path is None or (path.exists() and path.stat().st_size > 0)
    engine = pg_engine.create_postgres_engine(os.fspath(target))
    try:
        with engine.connect() as conn:
            return (
                conn.exec_driver_sql("SELECT to_regclass('alembic_version')").scalar() is not None
            )
    finally:
        engine.dispose()


def print_upgrade_sql(target: str | os.PathLike[str]) -> None:
    """Print the SQL that upgrading the database to head runs, without connecting to it."""
    from alembic import command

    config = migrations.alembic_config()
    url = os.fspath(target) if is_postgres(target) else sqlite_db.database_url(target)
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, "head", sql=True)

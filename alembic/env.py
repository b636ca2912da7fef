"""Alembic environment: the only place the schema of the history index is made or changed."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from history.home import database_path
from history.store.models import Base
from history.store.sqlite.engine import create_sqlite_engine, database_url, writer
from history.store.sqlite.fts import FTS_TABLE

config = context.config
target_metadata = Base.metadata


def include_name(name: str | None, type_: str, parent_names: object) -> bool:
    # FTS5 keeps its index in shadow tables (turns_fts_data, _idx, _docsize, _config): not ours to
    # compare. Alembic's own bookkeeping is excluded for the same reason.
    if type_ == "table" and name is not None:
        return not name.startswith(FTS_TABLE)
    return True


def _url() -> str:
    """`sqlalchemy.url` when set, else the default home's database."""
    return config.get_main_option("sqlalchemy.url") or database_url(database_path(None))


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        include_name=include_name,
        compare_type=True,
        compare_server_default=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:
        do_run_migrations(given)
        return
    engine = create_sqlite_engine(_url())
    try:
        with writer(engine).begin() as connection:
            do_run_migrations(connection)
    finally:
        engine.dispose()


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        render_as_batch=True,
        literal_binds=True,
        include_name=include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

"""Alembic environment: the only place the schema of the history index is made or changed.

One tree of revisions for SQLite and PostgreSQL: a revision whose work differs by dialect
branches on it inside. On PostgreSQL the migration holds an advisory lock for its transaction,
so two processes migrating one database at once take turns: the second finds it at head.
"""

from __future__ import annotations

import re

from alembic import context
from sqlalchemy import Connection, Engine

from history.home import database_path
from history.store.models import Base
from history.store.postgres import engine as pg_engine
from history.store.postgres import project_index as pg_project_index
from history.store.postgres import project_words as pg_project_words
from history.store.postgres import schema as pg_schema
from history.store.sqlite import best_turns, word_counts
from history.store.sqlite.engine import create_sqlite_engine, database_url, writer
from history.store.sqlite.fts import FTS_TABLE

config = context.config
target_metadata = Base.metadata
# pg_advisory_xact_lock's key: any fixed number; these are the bytes of "recall-h".
MIGRATION_LOCK = 0x726563616C6C2D68
PG_TURNS_BESIDE = ("turn_ids", "scrub_partitions", "turns_waiting")
PG_PARTITION = re.compile(r"turns_p\d+")
PG_TURNS_UNIQUE = ("uq_turns_turn_id", "uq_turns_project_turn_id")


def include_name(name: str | None, type_: str, parent_names: object) -> bool:
    # FTS5 keeps its index in shadow tables (turns_fts_data, _idx, _docsize, _config), the
    # search keeps the common words' lists and counts beside it (SQLite, best_turns.py,
    # word_counts.py), and PostgreSQL's index is a column the database computes: none is the
    # model's to compare; nor is
    # PostgreSQL's sample of each project's common words, a planning aid of its search.
    # On PostgreSQL `turns` is partitioned by project (revision 0019): its partitions (and
    # their indexes) are the table's storage, `turn_ids` and `scrub_partitions` keep its turn
    # ids unique and its forgotten rows' partitions, and its unique constraint holds the
    # project (a partitioned table's must hold the partition key).
    if type_ == "table" and name is not None:
        kept_beside = (FTS_TABLE, best_turns.ROWS, word_counts.TABLE)
        partitioned = name in PG_TURNS_BESIDE or PG_PARTITION.fullmatch(name) is not None
        return (
            not name.startswith(kept_beside)
            and name != pg_project_words.TABLE
            and not (partitioned)
        )
    if type_ == "unique_constraint" and name in PG_TURNS_UNIQUE:
        return not _on_postgres()
    if type_ == "column":
        return name != pg_schema.VECTOR_COLUMN
    if type_ == "index":
        return name not in (
            pg_schema.VECTOR_INDEX,
            pg_schema.ASKED_INDEX,
            pg_project_index.INDEX,
            best_turns.TURN_INDEX,
        )
    return True


def _on_postgres() -> bool:
    return bool(context.get_context().dialect.name == "postgresql")


def include_object(
    obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    """The model's unique turn id: on PostgreSQL, `turn_ids` keeps it (see include_name)."""
    table = getattr(getattr(obj, "table", None), "name", None)
    return not (type_ == "unique_constraint" and table == "turns" and _on_postgres())


def _url() -> str:
    """`sqlalchemy.url` when set, else the default home's database."""
    return config.get_main_option("sqlalchemy.url") or database_url(database_path(None))


def do_run_migrations(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        include_name=include_name,
        include_object=include_object,
        compare_type=True,
        compare_server_default=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _engine(url: str) -> Engine:
    if pg_engine.is_postgres_url(url):
        return pg_engine.create_postgres_engine(url)
    return create_sqlite_engine(url)


def run_migrations_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:
        do_run_migrations(given)
        return
    engine = _engine(_url())
    try:
        with writer(engine).begin() as connection:
            do_run_migrations(connection)
    finally:
        engine.dispose()


def run_migrations_offline() -> None:
    url = _url()
    context.configure(
        url=pg_engine.normalized_url(url) if pg_engine.is_postgres_url(url) else url,
        target_metadata=target_metadata,
        render_as_batch=not pg_engine.is_postgres_url(url),
        literal_binds=True,
        include_name=include_name,
        include_object=include_object,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

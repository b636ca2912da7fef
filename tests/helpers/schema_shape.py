"""What a database's schema is, read from the database itself, in a form two databases compare by.

SQLite: every object of sqlite_master (its SQL with the whitespace normalised) and FTS5's
persistent options. PostgreSQL (pg_catalog): tables, columns (type, nullability, default,
generation, storage, statistics target), constraints, indexes (with their options), triggers and
functions. Each is a mapping of "kind name" to its definition; `digest` sums one up.

`python -m tests.helpers.schema_shape` prints the digests of the schema after each revision, made by
upgrading an empty database one revision at a time: what tests/fixtures/schema_digests.json
holds (a new revision adds its line; an old revision's line never changes).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, Connection, DateTime, Engine, Integer, inspect, text

Schema = dict[str, str]

_SPACE = re.compile(r"\s+")
_INNER = re.compile(r"\(\s+|\s+\)")


def normalised(sql: str) -> str:
    """One space wherever SQL had any run of whitespace, none just inside parentheses."""
    flat = _SPACE.sub(" ", sql).strip()
    return _INNER.sub(lambda found: found.group(0).strip(), flat)


def schema(conn: Connection) -> Schema:
    if conn.dialect.name == "postgresql":
        return _postgres(conn)
    return _sqlite(conn)


def digest(shape: Schema) -> str:
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:16]


def _sqlite(conn: Connection) -> Schema:
    found = conn.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    )
    shape = {f"{kind} {name}": normalised(sql or "") for kind, name, sql in found}
    if "table turns_fts_config" in shape:
        options = conn.exec_driver_sql("SELECT k, v FROM turns_fts_config")
        shape |= {f"fts5 option {key}": str(value) for key, value in options}
    return shape


_PG_QUERIES = {
    "table": """
        SELECT table_name, table_type FROM information_schema.tables
        WHERE table_schema = current_schema()""",
    "column": """
        SELECT c.table_name || '.' || c.column_name, concat_ws(' ', c.data_type,
            c.is_nullable, 'default', c.column_default, 'generated', c.is_generated,
            c.generation_expression, 'storage', a.attstorage,
            'statistics', coalesce(a.attstattarget, -1))
        FROM information_schema.columns AS c
        JOIN pg_attribute AS a
            ON a.attrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))
                ::regclass
            AND a.attname = c.column_name
        WHERE c.table_schema = current_schema()""",
    "constraint": """
        SELECT conrelid::regclass::text || '.' || conname, pg_get_constraintdef(oid)
        FROM pg_constraint WHERE connamespace = current_schema()::regnamespace""",
    "index": """
        SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()""",
    "trigger": """
        SELECT tgrelid::regclass::text || '.' || tgname, pg_get_triggerdef(oid)
        FROM pg_trigger WHERE NOT tgisinternal""",
    "function": """
        SELECT proname || '(' || pg_get_function_identity_arguments(oid) || ')',
            pg_get_functiondef(oid)
        FROM pg_proc WHERE pronamespace = current_schema()::regnamespace""",
}


def _postgres(conn: Connection) -> Schema:
    shape: Schema = {}
    for kind, query in _PG_QUERIES.items():
        for name, definition in conn.execute(text(query)):
            shape[f"{kind} {name}"] = normalised(str(definition))
    return shape


# Tables a revision made that a test may fill as they come (the summaries and the search's
# lists are kept by triggers and upkeep, not written by hand).
PLAIN_TABLES = (
    "turns",
    "forgotten_sessions",
    "forget_work",
    "owed_scrub",
    "retention_settings",
    "retention_cutoffs",
    "access_keys",
    "audit_events",
)
_NAME_LISTS = ("files", "edited", "tools")
_WHEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC).replace(tzinfo=None)


def add_rows(engine: Engine, step: int) -> int:
    """One row in each plain table that exists now (a turn every time, the others while they
    are empty), its values made from the columns the table has at this revision; how many
    turns there are."""
    tables = set(inspect(engine).get_table_names())
    with engine.begin() as conn:
        for table in PLAIN_TABLES:
            if table not in tables:
                continue
            if table != "turns" and conn.execute(text(f"SELECT count(*) FROM {table}")).scalar():
                continue
            values = dict(_row(engine, table, step))
            names = ", ".join(values)
            marks = ", ".join(f":{name}" for name in values)
            conn.execute(text(f"INSERT INTO {table} ({names}) VALUES ({marks})"), values)
        return int(conn.execute(text("SELECT count(*) FROM turns")).scalar_one())


def _row(engine: Engine, table: str, step: int) -> Iterator[tuple[str, Any]]:
    for column in inspect(engine).get_columns(table):
        name, kind = column["name"], column["type"]
        if column.get("computed") or (table in ("turns", "forget_work") and name == "id"):
            continue
        if name in _NAME_LISTS:
            yield name, json.dumps([f"src/step_{step}.py"])
        elif isinstance(kind, Boolean):
            yield name, step % 2 == 1
        elif isinstance(kind, DateTime):
            yield name, _WHEN
        elif isinstance(kind, Integer):
            yield name, 1 if name == "id" else step + 1
        else:
            yield name, f"{name} {step} login hashing"


def digests_by_revision(engine: Engine) -> dict[str, str]:
    """Upgrade an empty database one revision at a time; the schema's digest after each."""
    from alembic.script import ScriptDirectory

    from history.store import migrations

    script = ScriptDirectory.from_config(migrations.alembic_config())
    found: dict[str, str] = {}
    for revision in reversed(list(script.walk_revisions())):
        migrations.upgrade(engine, revision.revision)
        with engine.connect() as conn:
            found[revision.revision] = digest(schema(conn))
    return found


if __name__ == "__main__":  # pragma: no cover - run by hand when a revision is added
    import sys
    import tempfile
    from pathlib import Path

    from history.store.postgres.engine import create_postgres_engine
    from history.store.sqlite.engine import create_sqlite_engine, database_url

    with tempfile.TemporaryDirectory() as folder:
        sqlite = create_sqlite_engine(database_url(Path(folder) / "history.db"))
        digests = {"sqlite": digests_by_revision(sqlite)}
        sqlite.dispose()
    if len(sys.argv) > 1:  # an empty PostgreSQL database's URL
        postgres = create_postgres_engine(sys.argv[1])
        digests["postgresql"] = digests_by_revision(postgres)
        postgres.dispose()
    print(json.dumps(digests, indent=2))

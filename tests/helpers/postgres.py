"""PostgreSQL for tests: a migrated template database per test run, and clean databases from it.

`RECALL_TEST_POSTGRES_URL` names a server and a database to administer from (default: the local
server, trust auth). Without a reachable server the tests that need one skip, saying why; under
CI=true they fail instead, so CI always runs them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url

from history import HistoryIndex
from history.rules_version import RULES_VERSION, VERSION_KEY
from tests.helpers.engines import searches_engine_of
from tests.helpers.unavailable import cannot_run

ADMIN_URL = os.environ.get(
    "RECALL_TEST_POSTGRES_URL", "postgresql+psycopg://root@127.0.0.1:5432/test"
)
PREFIX = f"recall_test_{os.getpid()}"
_numbers = itertools.count()
_unreachable: str | None = None
_template: str | None = None


def _admin_conninfo(database: str | None = None) -> str:
    url = make_url(ADMIN_URL)
    if database is not None:
        url = url.set(database=database)
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def url_of(database: str) -> str:
    return make_url(ADMIN_URL).set(database=database).render_as_string(hide_password=False)


def _execute(statement: str, database: str | None = None) -> None:
    import psycopg

    with psycopg.connect(_admin_conninfo(database), autocommit=True, connect_timeout=3) as conn:
        conn.execute(statement)


def require_server() -> None:
    """Skip (fail under CI=true) when there is no server to test against."""
    global _unreachable
    if _unreachable is None:
        try:
            import psycopg

            psycopg.connect(_admin_conninfo(), connect_timeout=3).close()
            _unreachable = ""
        except Exception as exc:
            _unreachable = f"no PostgreSQL at {make_url(ADMIN_URL)!r}: {type(exc).__name__}"
    if _unreachable:
        cannot_run(_unreachable, "PostgreSQL tests must run")


def template() -> str:
    """A database migrated to head, made once per test run: each test's is a copy of it."""
    global _template
    require_server()
    if _template is None:
        from history import HistoryIndex

        name = f"{PREFIX}_template"
        _execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        _execute(f"CREATE DATABASE {name}")
        HistoryIndex.open(url_of(name)).close()
        _template = name
    return _template


def fresh_database() -> str:
    """A new database at head: a copy of the template. Its commits do not wait for the disk
    (a test never survives a crash of the server; the suite's time does not go to fsync)."""
    name = f"{PREFIX}_{next(_numbers)}"
    _execute(f"CREATE DATABASE {name} TEMPLATE {template()}")
    _execute(f"ALTER DATABASE {name} SET synchronous_commit TO off")
    return name


def drop(name: str) -> None:
    _execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# Dropped at the end of the run, not after each test: a DROP DATABASE waits for a checkpoint of
# the whole server (~0.5 s quiet, seconds when another database is being written).
_done_with: list[str] = []


def fresh_url() -> Iterator[str]:
    """The URL of a new database at head (for tests that change its schema), dropped after."""
    name = fresh_database()
    try:
        yield url_of(name)
    finally:
        _done_with.append(name)


def empty_url() -> Iterator[str]:
    """The URL of a new database that no revision has touched, dropped after (its commits do
    not wait for the disk either)."""
    require_server()
    name = f"{PREFIX}_{next(_numbers)}"
    _execute(f"CREATE DATABASE {name}")
    _execute(f"ALTER DATABASE {name} SET synchronous_commit TO off")
    try:
        yield url_of(name)
    finally:
        _done_with.append(name)


_reused: str | None = None
_emptier: Any = None  # a connection to the reused database, kept open for the whole run
# Every table the migrations made, but Alembic's own, that was ever written (its file has pages:
# dead rows count, so no test's text is left for the next one's byte checks), and every sequence
# back to 1. Truncating only those: `turns` is 64 partitions (revision 0019), and truncating every
# one of them and their indexes cost ~0.8 s a test.
EMPTY_EVERY_TABLE = """
DO $$
DECLARE
    written text;
    sequence record;
BEGIN
    SELECT string_agg(quote_ident(c.relname), ', ') INTO written
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> 'alembic_version'
      AND pg_relation_size(c.oid) > 0;
    IF written IS NOT NULL THEN
        EXECUTE 'TRUNCATE ' || written || ' CASCADE';
    END IF;
    FOR sequence IN SELECT schemaname, sequencename FROM pg_sequences
                    WHERE schemaname = current_schema() LOOP
        PERFORM setval(
            quote_ident(sequence.schemaname) || '.' || quote_ident(sequence.sequencename), 1, false
        );
    END LOOP;
END $$
"""


# The row the template's first open wrote, put back: which version of the secret rules the stored
# turns follow (a database that held no turn follows the current one). Without it each test's
# open would find the version unknown, look for a turn across every partition and write the row
# again (~15 ms of the server's a test).
RULES_FOLLOWED = (
    "INSERT INTO retention_settings (project, keep_days, set_at)"
    " VALUES (%s, %s, now() AT TIME ZONE 'utc') ON CONFLICT DO NOTHING"
)


def emptied_url() -> str:
    """The URL of a database at head with empty tables: one database per test run, emptied
    before each test (a copy and a drop cost ~0.8 s; emptying costs ~10 ms). Tests that
    change the schema take `fresh_url` instead. The emptying goes through one connection kept
    open (idle, it holds no snapshot back): a new one costs the server a process and its
    caches, ~5 ms a test."""
    global _reused, _emptier
    if _reused is None:
        _reused = fresh_database()
        return url_of(_reused)
    import psycopg

    for attempt in (1, 2):
        if _emptier is None or _emptier.closed:
            _emptier = psycopg.connect(_admin_conninfo(_reused), autocommit=True, connect_timeout=3)
        try:
            _emptier.execute(EMPTY_EVERY_TABLE)
            _emptier.execute(RULES_FOLLOWED, (VERSION_KEY, RULES_VERSION))
            break
        except psycopg.OperationalError:
            _emptier.close()  # the server let it go: a new one, once
            if attempt == 2:
                raise
    return url_of(_reused)


def drop_databases() -> None:
    """At the end of the run: the databases of tests that changed their schema, the reused
    database and the template."""
    if _emptier is not None:
        _emptier.close()
    if not _unreachable:
        for name in (*_done_with, _reused, _template):
            if name is not None:
                drop(name)


def ranking_calls(
    index: HistoryIndex, query: str, project: str | None
) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    """The ranking statements a search sent (None: of every project) with their bound values,
    and what it found."""
    calls: list[tuple[str, dict[str, Any]]] = []

    def ranking(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        if "ts_rank" in statement:
            calls.append((statement, dict(parameters)))

    event.listen(searches_engine_of(index), "before_cursor_execute", ranking)
    try:
        found = index.search(query, project=project, k=5)
    finally:
        event.remove(searches_engine_of(index), "before_cursor_execute", ranking)
    return calls, found


def ranking_statements(
    index: HistoryIndex, query: str, project: str | None
) -> tuple[list[str], Any]:
    """The ranking statements a search sent (None: of every project), and what it found."""
    calls, found = ranking_calls(index, query, project)
    return [statement for statement, _ in calls], found

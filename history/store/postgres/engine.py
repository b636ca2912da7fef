"""The PostgreSQL engine: psycopg 3 under SQLAlchemy's pool, which checks a connection before
handing it out, so a restarted server costs one failed call, not a broken process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.engine import make_url

# How long connecting may take before a write gives up (the caller logs and goes on).
CONNECT_TIMEOUT_SECONDS = 5
# A statement waiting on a lock longer than this fails instead of hanging a turn.
LOCK_TIMEOUT_MS = 5_000
# Our statements each read a few thousand rows at most: starting parallel workers (~10 ms on a
# busy machine) or compiling with JIT (10-30 ms) costs more than the statement, and the planner,
# which cannot know that ranking stops early, would choose both for the search's statements.
# work_mem: a common word's GIN bitmap (at 1M turns, 121,000 turns asking about `bug`) outgrows
# the default 4 MB and turns lossy; ANDed with a window, every row of a lossy page is then
# rechecked by computing the question's index expression again (one such statement: 313 ms;
# with 16 MB, 38 ms).
SESSION_SETTINGS = "-c jit=off -c max_parallel_workers_per_gather=0 -c work_mem=16MB"


class DriverMissing(RuntimeError):
    """psycopg is not installed: PostgreSQL needs the `postgres` extra."""


def is_postgres_url(url: str) -> bool:
    return "://" in url and make_url(url).get_backend_name() == "postgresql"


def normalized_url(url: str) -> str:
    """`postgresql://` and `postgres://` mean psycopg 3 here (SQLAlchemy would pick psycopg2)."""
    parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def create_postgres_engine(url: str, lock_timeout_ms: int = LOCK_TIMEOUT_MS) -> Engine:
    try:
        import psycopg  # noqa: F401
    except ImportError as missing:
        raise DriverMissing(
            "PostgreSQL needs psycopg: pip install 'recall-history[postgres]'"
        ) from missing
    return create_engine(
        normalized_url(url),
        # Bound values are turn text: never in an exception message or a log line.
        hide_parameters=True,
        pool_pre_ping=True,
        # The connection used last is handed out first: one after another, searches run on one
        # connection, which has planned their kinds of statement before (search.py); taken in
        # turn, each of the pool's connections would plan every kind anew.
        pool_use_lifo=True,
        pool_size=5,
        max_overflow=10,
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_SECONDS,
            "application_name": "recall-history",
            "options": f"-c lock_timeout={int(lock_timeout_ms)} {SESSION_SETTINGS}",
        },
    )


@contextmanager
def prepared_at_first_run(conn: Connection) -> Iterator[None]:
    """Within the block, psycopg prepares each statement on `conn` at its first run (its default
    is the fifth): under a generic plan mode, the plan the server makes then is kept for the
    statement's next runs on that connection (planning over 64 partitions costs as much as
    running the statement)."""
    driver: Any = conn.connection.driver_connection
    if driver is None:
        yield
        return
    kept = driver.prepare_threshold
    driver.prepare_threshold = 0
    try:
        yield
    finally:
        driver.prepare_threshold = kept


def display_url(url: str) -> str:
    """The URL without its password, for messages."""
    return make_url(normalized_url(url)).render_as_string(hide_password=True)

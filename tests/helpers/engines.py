"""The database engine under an index, for the tests that look at what was written with plain
SQL: the public face (HistoryIndex) has none, and no face may reach one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from history import HistoryIndex


def engine_of(index: HistoryIndex) -> Engine:
    engine = getattr(index._repository, "engine", None)
    assert isinstance(engine, Engine), "this index stands on no SQL store"
    return engine


def searches_engine_of(index: HistoryIndex) -> Engine:
    """The engine a PostgreSQL index's full-text searches run on."""
    engine = index._repository._search.engine  # type: ignore[attr-defined]
    assert isinstance(engine, Engine), "this index searches no PostgreSQL database"
    return engine


def unmigrated(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on a database no revision has touched, `request.param` its backend ("sqlite"
    or "postgresql"): for the tests that run one revision up and down with rows."""
    from history.store.postgres import engine as pg_engine
    from history.store.sqlite import engine as sqlite_db

    if request.param == "sqlite":
        made = sqlite_db.create_sqlite_engine(sqlite_db.database_url(tmp_path / "history.db"))
    else:
        made = pg_engine.create_postgres_engine(request.getfixturevalue("empty_postgres_url"))
    yield made
    made.dispose()

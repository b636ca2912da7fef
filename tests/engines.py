"""The database engine under an index, for the tests that look at what was written with plain
SQL: the public face (HistoryIndex) has none, and no face may reach one."""

from __future__ import annotations

from sqlalchemy import Engine

from history import HistoryIndex


def engine_of(index: HistoryIndex) -> Engine:
    engine = getattr(index._repository, "engine", None)
    assert isinstance(engine, Engine), "this index stands on no SQL store"
    return engine

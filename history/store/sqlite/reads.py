"""The little of a connection the search reads through: `exec_driver_sql(sql, values)` and its
result's `all`, `first`, `scalar`, `scalar_one` and rows. A SQLAlchemy `Connection` has them;
`DriverConnection` gives them to a plain DB-API connection, so that the same search code
(fts_search.py and the modules it reads with) runs inside HistoryIndex and in a process that
reads a current file through the driver alone (direct_search.py), without importing SQLAlchemy.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from history.store.sqlite.connection import sqlite_driver


class Result(Protocol):
    def all(self) -> Sequence[Any]: ...

    def first(self) -> Any: ...

    def scalar(self) -> Any: ...

    def scalar_one(self) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


class Sql(Protocol):
    """What the search's reads need of a connection (a SQLAlchemy Connection is one)."""

    def exec_driver_sql(self, statement: str, parameters: Any = None, /) -> Result: ...


class DriverResult:
    """A cursor's rows, read as SQLAlchemy's result reads them."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    def all(self) -> list[Any]:
        try:
            return list(self._cursor.fetchall())
        finally:
            self._cursor.close()

    def first(self) -> Any:
        try:
            return self._cursor.fetchone()
        finally:
            self._cursor.close()

    def scalar(self) -> Any:
        row = self.first()
        return None if row is None else row[0]

    def scalar_one(self) -> Any:
        rows = self.all()
        if len(rows) != 1:
            raise LookupError(f"one row was expected, {len(rows)} came")
        return rows[0][0]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.all())


class DriverConnection:
    """A DB-API connection with SQLAlchemy's `exec_driver_sql`."""

    def __init__(self, dbapi_conn: Any) -> None:
        self.dbapi_conn = dbapi_conn

    def exec_driver_sql(self, statement: str, parameters: Any = None, /) -> DriverResult:
        cursor = self.dbapi_conn.cursor()
        cursor.execute(statement, () if parameters is None else parameters)
        return DriverResult(cursor)


def operational(error: BaseException) -> bool:
    """Whether `error` is SQLite's OperationalError (no such table, no such function...), as
    the driver raises it or as SQLAlchemy wraps it."""
    if isinstance(error, (sqlite_driver().OperationalError, sqlite3.OperationalError)):
        return True
    wrapped = sys.modules.get("sqlalchemy.exc")
    return wrapped is not None and isinstance(error, wrapped.OperationalError)

"""The unit layer opens no database: every driver's connect refuses here, so a test that needs
one fails at once and belongs in tests/integration."""

from __future__ import annotations

import sqlite3
import sqlite3.dbapi2
from typing import NoReturn

import pytest
import sqlean  # type: ignore[import-untyped]  # sqlean.py ships no type information
import sqlean.dbapi2  # type: ignore[import-untyped]


def _refuse(*args: object, **kwargs: object) -> NoReturn:
    raise AssertionError("a unit test opened a database: move it to tests/integration")


@pytest.fixture(autouse=True)
def _no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    for driver in (sqlite3, sqlite3.dbapi2, sqlean, sqlean.dbapi2):
        monkeypatch.setattr(driver, "connect", _refuse)
    try:
        import psycopg
    except ImportError:  # the PostgreSQL driver is an extra
        return
    monkeypatch.setattr(psycopg, "connect", _refuse)

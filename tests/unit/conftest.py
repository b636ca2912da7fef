"""The unit layer opens no database: every driver's connect refuses here, so a test that needs
one fails at once and belongs in tests/integration."""

from __future__ import annotations

import contextlib
import sqlite3
import sqlite3.dbapi2
from collections.abc import Iterator
from typing import NoReturn

import pytest
import sqlean
import sqlean.dbapi2


def _refuse(*args: object, **kwargs: object) -> NoReturn:
    raise AssertionError("a unit test opened a database: move it to tests/integration")


@pytest.fixture(autouse=True, scope="module")
def _no_database() -> Iterator[None]:
    # Module-scoped, so it is in place before any module fixture of the layer runs.
    with pytest.MonkeyPatch.context() as patch:
        for driver in (sqlite3, sqlite3.dbapi2, sqlean, sqlean.dbapi2):
            patch.setattr(driver, "connect", _refuse)
        with contextlib.suppress(ImportError):  # the PostgreSQL driver is an extra
            import psycopg

            patch.setattr(psycopg, "connect", _refuse)
        yield

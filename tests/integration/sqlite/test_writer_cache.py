"""A write transaction gets a large page cache (an import's batches write all over the turns'
indexes), and the connection gives it back when it returns to the pool: readers keep SQLite's
default, so a service's pooled connections do not each hold 64 MiB."""

from __future__ import annotations

from pathlib import Path

from history.store.sqlite.engine import (
    READER_CACHE_KIB,
    WRITER_CACHE_KIB,
    create_sqlite_engine,
    database_url,
    writer,
)


def cache_size_kib(conn: object) -> int:
    value = conn.exec_driver_sql("PRAGMA cache_size").scalar_one()  # type: ignore[attr-defined]
    return -int(value)


def test_a_write_transaction_has_the_large_cache_and_gives_it_back(tmp_path: Path) -> None:
    engine = create_sqlite_engine(database_url(tmp_path / "h.db"))
    with engine.connect() as conn:
        assert cache_size_kib(conn) == READER_CACHE_KIB
    with writer(engine).begin() as conn:
        assert cache_size_kib(conn) == WRITER_CACHE_KIB
        conn.exec_driver_sql("CREATE TABLE t (x)")
    with engine.connect() as conn:  # the same pooled connection, back to the default
        assert cache_size_kib(conn) == READER_CACHE_KIB
    engine.dispose()

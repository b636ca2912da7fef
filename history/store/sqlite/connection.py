"""A connection to the history's SQLite file as every process of this package sets it up: the
driver, the PRAGMAs and the functions the triggers and searches call. Without SQLAlchemy: the
engine (engine.py) runs this on each connection it makes, and a hook that writes straight
through the driver (direct.py) on its one.
"""

from __future__ import annotations

import importlib
import sqlite3
from types import ModuleType

from history.query import fold, index_text
from history.store.sqlite import rank_extension, summaries

FTS_TABLE = "turns_fts"

BUSY_TIMEOUT_MS = 5_000
WAL_AUTOCHECKPOINT_PAGES = 10_000
# A write transaction's page cache (SQLite's default, which reads keep, is 2 MiB): a batch of
# turns writes all over the turns' indexes, and with 2 MiB the pages it dirtied spilled to the WAL
# and were read back in within the batch. At 200k turns the import's CPU rate rose by 18%
# (bench/RESULTS.md). Given back when the connection returns to the pool.
WRITER_CACHE_KIB = 65_536
READER_CACHE_KIB = 2_000
# What the full-text index is given of each text column (fts.py; CJK as pairs).
INDEX_TEXT_FUNCTION = "recall_index_text"


def sqlite_driver() -> ModuleType:
    """The DB-API module for SQLite: sqlean.py's, which bundles a current SQLite (FTS5's
    secure-delete needs 3.42; forgetting without it costs a full index rewrite), else the
    standard library's."""
    try:
        return importlib.import_module("sqlean.dbapi2")
    except ImportError:  # pragma: no cover - sqlean.py is a dependency; this is a safety net
        return importlib.import_module("sqlite3.dbapi2")


def set_up(
    dbapi_conn: sqlite3.Connection,
    busy_timeout_ms: int,
    wal_autocheckpoint_pages: int = WAL_AUTOCHECKPOINT_PAGES,
    exclusive: bool = False,
) -> tuple[summaries.BulkFlag, bool]:
    """PRAGMAs and functions of a new connection; its bulk flag (summaries.py) and whether the
    compiled ranking library loaded."""
    # The driver's own transaction handling would BEGIN lazily and DEFERRED; take it over.
    dbapi_conn.isolation_level = None
    cursor = dbapi_conn.cursor()
    for pragma in (
        # Before the first read, or SQLite has already made the -shm.
        *(["locking_mode = EXCLUSIVE"] if exclusive else []),
        f"busy_timeout = {busy_timeout_ms}",
        "journal_mode = WAL",
        "synchronous = NORMAL",
        # Upkeep checkpoints once writes pause (history/upkeep.py); a commit pays for one
        # only in a long burst, when the WAL reaches ~40 MB.
        f"wal_autocheckpoint = {wal_autocheckpoint_pages}",
        "secure_delete = ON",
        "foreign_keys = ON",
    ):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()
    # The LIKE path compares folded text, as the FTS5 tokenizer does.
    dbapi_conn.create_function("recall_fold", 1, _fold_or_none, deterministic=True)
    # Where the compiled library loads (below), its own recall_index_text takes this one's place.
    dbapi_conn.create_function(INDEX_TEXT_FUNCTION, 1, _index_text_or_none, deterministic=True)
    # Whether the summary insert trigger steps aside: a bulk write turns it on (summaries.py).
    bulk = summaries.BulkFlag()
    dbapi_conn.create_function(summaries.IN_BULK_FUNCTION, 0, bulk)
    # FTS5's bm25() with the word counts handed in, where the compiled library loads.
    return bulk, rank_extension.load(dbapi_conn)


def _fold_or_none(value: str | None) -> str | None:
    return None if value is None else fold(value)


def _index_text_or_none(value: str | None) -> str | None:
    return None if value is None else index_text(value)

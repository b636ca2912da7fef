"""A PostgreSQL database's relation files, read back to see forgotten text gone from them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from history import HistoryIndex
from tests.helpers.engines import engine_of

_RELATIONS = """
WITH tables AS (
    SELECT relid AS oid FROM pg_partition_tree(%(table)s::regclass) WHERE isleaf
    UNION
    SELECT oid FROM pg_class WHERE oid = %(table)s::regclass AND relkind = 'r'
    UNION ALL
    SELECT 'turns_waiting'::regclass
    UNION ALL
    SELECT reltoastrelid FROM pg_class
    WHERE (oid IN (SELECT relid FROM pg_partition_tree(%(table)s::regclass))
           OR oid = %(table)s::regclass OR oid = 'turns_waiting'::regclass)
      AND reltoastrelid <> 0
)
SELECT pg_relation_filepath(oid) FROM tables
UNION ALL
SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid IN (SELECT oid FROM tables)
"""


def relation_files(url: str, table: str = "turns") -> list[Path]:
    """Every segment of `table`'s (its partitions'), `turns_waiting`'s, their TOAST tables' and
    their indexes' files, after a CHECKPOINT has written what shared buffers held."""
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        paths = [data / str(row[0]) for row in conn.execute(_RELATIONS, {"table": table})]
    if not all(os.access(path, os.R_OK) for path in paths):
        pytest.skip("the server's data directory is not readable here (root on its machine)")
    return [
        segment
        for path in paths
        for segment in path.parent.glob(f"{path.name}*")
        if segment.name == path.name or segment.name.startswith(f"{path.name}.")
    ]


def occurrences(url: str, needle: bytes, at_most: int | None = None) -> int:
    """How many times `needle` is in the files relation_files names, read a segment at a time
    (counting stops at `at_most`)."""
    count = 0
    for path in relation_files(url):
        with path.open("rb") as file:
            tail = b""
            while chunk := file.read(64 << 20):
                count += (tail + chunk).count(needle) - tail.count(needle)
                if at_most is not None and count >= at_most:
                    return count
                tail = chunk[-len(needle) :]
    return count


def relation_bytes(url: str, table: str = "turns") -> bytes:
    """The bytes of every file relation_files names."""
    return b"".join(segment.read_bytes() for segment in relation_files(url, table))


def scrubbed(index: HistoryIndex) -> bool:
    """Whether the scrub is done, upkeep trying it again for a while: a transaction elsewhere on
    the server that began before the forget (another test run's, say) holds it back until it
    ends."""
    deadline = time.monotonic() + 60
    while index.purge_pending and time.monotonic() < deadline:
        time.sleep(0.2)
        index.tidy()
    return not index.purge_pending


def url(index: HistoryIndex) -> str:
    return engine_of(index).url.render_as_string(hide_password=False)

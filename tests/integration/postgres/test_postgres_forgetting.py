"""Forgotten means gone on PostgreSQL too: out of search at once, and after the scrub (and a
CHECKPOINT) in none of the files of the table, its TOAST table or their indexes."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from history import HistoryIndex
from history.store.postgres.scrub import Scrub
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import CANARY, FORGETS, fill

_RELATIONS = """
WITH tables AS (
    SELECT relid AS oid FROM pg_partition_tree('turns') WHERE isleaf
    UNION ALL
    SELECT reltoastrelid FROM pg_class
    WHERE oid IN (SELECT relid FROM pg_partition_tree('turns')) AND reltoastrelid <> 0
)
SELECT pg_relation_filepath(oid) FROM tables
UNION ALL
SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid IN (SELECT oid FROM tables)
"""


def relation_files(url: str) -> list[Path]:
    """Every segment of the table's partitions', their TOAST tables' and their indexes' files,
    after a CHECKPOINT has written what shared buffers held."""
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        paths = [data / str(row[0]) for row in conn.execute(_RELATIONS)]
    if not all(os.access(path, os.R_OK) for path in paths):
        pytest.skip("the server's data directory is not readable here (root on its machine)")
    return [
        segment
        for path in paths
        for segment in path.parent.glob(f"{path.name}*")
        if segment.name == path.name or segment.name.startswith(f"{path.name}.")
    ]


def relation_bytes(url: str) -> bytes:
    """Every segment of the table's partitions', their TOAST tables' and their indexes' files,
    after a CHECKPOINT has written what shared buffers held."""
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        paths = [data / str(row[0]) for row in conn.execute(_RELATIONS)]
    if not all(os.access(path, os.R_OK) for path in paths):
        pytest.skip("the server's data directory is not readable here (root on its machine)")
    return b"".join(
        segment.read_bytes()
        for path in paths
        for segment in path.parent.glob(f"{path.name}*")
        if segment.name == path.name or segment.name.startswith(f"{path.name}.")
    )


@pytest.fixture
def index(postgres_url: str) -> Iterator[HistoryIndex]:
    opened = HistoryIndex.open(postgres_url)
    yield opened
    opened.close()


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


@pytest.mark.parametrize("forget", FORGETS.values(), ids=FORGETS.keys())
def test_forgotten_text_is_in_no_relation_file(
    index: HistoryIndex, forget: Callable[[HistoryIndex], int]
) -> None:
    fill(index)
    before = relation_bytes(url(index))
    assert CANARY.encode() in before  # the check can see it when present
    assert forget(index) == 3
    assert index.search(CANARY, project=None) == []
    assert index.count() == 300 and scrubbed(index)
    after = relation_bytes(url(index))
    assert CANARY.encode() not in after and b"secret plan" not in after
    assert forget(index) == 0


def test_deleting_without_the_scrub_leaves_the_canary_in_the_index(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Guards the test above: a plain VACUUM frees the rows, but GIN keeps every word it indexed.
    def vacuum_only(self: Scrub) -> bool:
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM turns")
        return True

    monkeypatch.setattr(Scrub, "run", vacuum_only)
    fill(index)
    index.forget_session("doomed")
    assert CANARY.encode() in relation_bytes(url(index))


def test_a_reader_holding_a_snapshot_delays_the_scrub_and_the_next_write_finishes_it(
    index: HistoryIndex, caplog: pytest.LogCaptureFixture
) -> None:
    fill(index)
    conninfo = make_url(url(index)).set(drivername="postgresql").render_as_string(False)
    reader = psycopg.connect(conninfo)
    # A snapshot taken before the forget, holding no lock on turns: a rewrite now would copy
    # the rows that snapshot can still see.
    reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    assert reader.execute("SELECT count(*) FROM forgotten_sessions").fetchone() == (0,)
    try:
        assert index.forget_session("doomed") == 3
        assert index.search(CANARY, project=None) == []
        assert index.purge_pending
        assert "reader still holds an older snapshot" in caplog.text
    finally:
        reader.rollback()
        reader.close()
    index.record(turn_id="next", session_id="next", project="/work/keep", asked="x", answered="")
    assert scrubbed(index)
    assert CANARY.encode() not in relation_bytes(url(index))

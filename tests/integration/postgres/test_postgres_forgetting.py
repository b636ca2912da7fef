"""Forgotten means gone on PostgreSQL too: out of search at once, and after the scrub (and a
CHECKPOINT) in none of the files of the table, its TOAST table or their indexes."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import psycopg
import pytest
from sqlalchemy.engine import make_url

from history import HistoryIndex
from history.store.postgres.scrub import Scrub
from tests.helpers.forgetting import CANARY, FORGETS, fill
from tests.helpers.pg_files import relation_bytes, scrubbed, url


@pytest.fixture
def index(postgres_url: str) -> Iterator[HistoryIndex]:
    opened = HistoryIndex.open(postgres_url)
    yield opened
    opened.close()


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

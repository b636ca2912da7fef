"""Retention on PostgreSQL: the same guarantees as a forget (out of search at once, out of the
table's files after the scrub, not brought back by an import), the setting kept in the
database and applied by the upkeep, and search never past retention."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from history import HistoryIndex
from history.tools import RecallHistoryTool
from tests.helpers.pg_files import relation_bytes, scrubbed, url
from tests.helpers.retention import CANARY, OLD, RECENT, turns


@pytest.fixture
def index(postgres_url: str) -> Iterator[HistoryIndex]:
    opened = HistoryIndex.open(postgres_url)
    yield opened
    opened.close()


def test_retain_by_age_and_project_leaves_no_byte_of_them(index: HistoryIndex) -> None:
    index.record_many([*turns(OLD, 30), *turns(RECENT, 5)])
    assert CANARY.encode() in relation_bytes(url(index))
    assert index.retain(90, project=OLD) == 30
    assert index.count(OLD) == 20 and index.count(RECENT) == 25
    assert {hit.project for hit in index.search(CANARY, project=None, k=10)} == {RECENT}
    assert index.retain(90) == 5
    assert index.search(CANARY, project=None) == []
    assert scrubbed(index)
    assert CANARY.encode() not in relation_bytes(url(index))
    assert index.record_many(turns(OLD, 30)).forgotten == 30  # the cutoff is a tombstone


def test_a_setting_persists_and_the_upkeep_applies_it(index: HistoryIndex) -> None:
    index.record_many([*turns(OLD, 30), *turns(RECENT, 0)])
    index.set_retention(60, project=OLD)
    reopened = HistoryIndex.open(url(index))
    assert reopened.retention().keep_days == {OLD: 60}
    # Out of search and the counts before the upkeep ran, the tool included.
    assert reopened.search(CANARY, project=OLD) == []
    assert f"{OLD}-old" not in RecallHistoryTool(reopened, OLD).run(CANARY, everywhere=True)
    assert reopened.count() == 40
    reopened.tidy()
    assert scrubbed(reopened)
    assert CANARY.encode() not in relation_bytes(url(index))
    assert reopened.count(OLD) == 20
    reopened.close()

"""Keeping less on purpose: `retain` forgets turns past an age with a forget's guarantees (out of
search, out of the file's bytes, not brought back by an import), and a retention setting kept in
the database is applied by the upkeep; search and the tools leave out what is past retention
even before the upkeep erased it."""

from __future__ import annotations

from pathlib import Path

import pytest

from history import HistoryIndex
from history.retention import parse_age
from history.store.sqlite import fts
from history.tools import RecallHistoryTool, RecallTurnTool
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import file_bytes
from tests.helpers.retention import CANARY, OLD, RECENT, turns


def assert_gone(directory: Path) -> None:
    raw = file_bytes(directory)
    assert CANARY.encode() not in raw
    assert CANARY[-8:].encode() not in raw, "the tail of the canary survived in the index"


@pytest.fixture(params=["fts5-secure-delete", "fts5-optimize"])
def scrub_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fts5-optimize":
        monkeypatch.setattr(fts, "secure_delete_supported", lambda conn: False)
    return str(request.param)


@pytest.mark.parametrize("old", [3, 150], ids=["few-at-once", "many-in-batches"])
def test_retain_older_than_forgets_them_from_search_and_the_bytes(
    tmp_path: Path, scrub_mode: str, old: int
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record_many(turns(OLD, old))
    index.record_many(turns(RECENT, 0))
    assert CANARY[-8:].encode() in file_bytes(tmp_path)  # the check can see it when present

    assert index.retain(90) == old
    assert index.search(CANARY, project=None) == []
    assert index.count() == 40 and index.count(OLD) == 20
    assert not index.purge_pending
    assert_gone(tmp_path)
    # Its cutoff is its tombstone: importing the same turns again brings back only the recent.
    counts = index.record_many(turns(OLD, old))
    assert (counts.new, counts.forgotten) == (0, old)
    assert index.search(CANARY, project=None) == []
    # A live turn recorded now is kept.
    assert index.record(turn_id="live", session_id="x", project=OLD, asked="parser", answered="")
    assert index.count(OLD) == 21
    index.close()


def test_retain_by_project_leaves_the_other_projects_whole(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record_many([*turns(OLD, 150), *turns(RECENT, 5)])
    assert index.retain(90, project=OLD) == 150
    assert index.count(OLD) == 20
    assert index.count(RECENT) == 25
    assert {hit.project for hit in index.search(CANARY, project=None, k=10)} == {RECENT}
    index.close()


def test_a_setting_persists_and_the_upkeep_erases_what_it_expires(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record_many([*turns(OLD, 150), *turns(RECENT, 0)])
    index.set_retention(30, project=OLD)
    index._upkeep.close()  # no upkeep before the restart: what it would erase is only hidden
    index._repository.close()
    engine_of(index).dispose()

    reopened = HistoryIndex.open(tmp_path / "history.db")
    assert reopened.retention().keep_days == {OLD: 30}
    assert CANARY[-8:].encode() in file_bytes(tmp_path)
    assert reopened.search(CANARY, project=OLD) == []
    assert reopened.count(OLD) == 20
    assert reopened.tidy()
    assert reopened.count(OLD) == 20 and reopened.count(RECENT) == 20
    assert not reopened.purge_pending
    assert_gone(tmp_path)
    assert reopened.unset_retention(project=OLD)
    assert not reopened.retention().keep_days
    assert not reopened.unset_retention(project=OLD)
    # What the setting forgot stays forgotten: an import does not bring it back.
    assert reopened.record_many(turns(OLD, 150)).forgotten == 150
    reopened.close()


def test_the_tools_never_return_a_turn_past_retention_before_upkeep(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record_many([*turns(OLD, 30), *turns(RECENT, 0), *turns("/work/long", 30)])
    index._upkeep.close()  # upkeep never runs here: only the search's cutoff hides them
    index.set_retention(90)  # every project
    index.set_retention(365, project="/work/long")  # longer for one
    found = index.search(CANARY, project=None, k=10)
    assert found and {hit.project for hit in found} == {"/work/long"}
    assert index.search(CANARY, project=OLD) == []
    assert index.search("parser", project=OLD, k=10)  # the recent ones
    assert index.turn(f"{OLD}-old-0") is None
    assert index.turn(f"{OLD}-new-0") is not None
    assert all(t.turn_id.startswith(f"{OLD}-new") for t in index.conversation(f"{OLD}-s0"))
    out = RecallHistoryTool(index, OLD).run(CANARY, everywhere=True, k=10)
    assert "/work/long" in out and f"{OLD}-old" not in out
    assert f"{OLD}-old" not in RecallHistoryTool(index, OLD).run(CANARY)
    assert CANARY not in RecallTurnTool(index, OLD).run(f"{OLD}-old-1")
    assert index.count() == 20 + 20 + 50
    assert index.count(OLD) == 20
    index._repository.close()


def test_ages_are_days_weeks_or_years() -> None:
    assert [parse_age(t) for t in ("90d", "12w", "1y", "30", " 7D ")] == [90, 84, 365, 30, 7]
    for bad in ("", "0d", "90m", "-3d", "ninety", "99999y"):
        with pytest.raises(ValueError):
            parse_age(bad)


def test_the_service_applies_a_setting_another_process_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from sqlalchemy import text

    from history import index as index_module

    monkeypatch.setattr(index_module, "RETENTION_CHECK_SECONDS", 0.2)
    serving = HistoryIndex.open(tmp_path / "history.db")
    serving.record_many([*turns(OLD, 150), *turns(RECENT, 0)])
    serving.tidy()
    serving.watch()  # what `recall serve` does
    other = HistoryIndex.open(tmp_path / "history.db")
    other._upkeep.close()  # it only stores the setting, as a `recall retain --set` elsewhere
    other._repository.set_retention(OLD, 30)
    stored = text("SELECT count(*) FROM turns")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with engine_of(serving).connect() as conn:
            if conn.execute(stored).scalar() == 40 and not serving.purge_pending:
                break
        time.sleep(0.1)
    with engine_of(serving).connect() as conn:
        assert conn.execute(stored).scalar() == 40
    assert not serving.purge_pending
    serving.close()
    assert_gone(tmp_path)
    other._repository.close()

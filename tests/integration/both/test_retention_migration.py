"""Revision 0017 on both dialects: up with rows (turns and owed forget work kept), settings and
cutoffs stored, and down again (its tables and column gone, the turns still there)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, text

from history import HistoryIndex
from history.store import migrations
from tests.helpers.engines import unmigrated

BEFORE, HEAD = "0016_turn_work", "0017_retention"


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    yield from unmigrated(request, tmp_path)


def test_0017_up_and_down_with_rows(engine: Engine) -> None:
    migrations.upgrade(engine, BEFORE)
    old = datetime(2026, 1, 2, 3, 4, 5)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO turns (turn_id, session_id, project, asked_at, tainted, asked,"
                " answered, files, edited, tools, work)"
                " VALUES ('t1', 's1', '/p', :old, false, 'parse it', 'ok', '[]', '[]', '[]', '')"
            ),
            {"old": old},
        )
        conn.execute(
            text("INSERT INTO forget_work (session_id, project, owed_at) VALUES ('s9', NULL, :t)"),
            {"t": old},
        )
    migrations.upgrade(engine, HEAD)
    assert {"retention_settings", "retention_cutoffs"} <= set(inspect(engine).get_table_names())
    assert "asked_before" in {c["name"] for c in inspect(engine).get_columns("forget_work")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turns")).scalar() == 1
        assert conn.execute(text("SELECT asked_before FROM forget_work")).scalar() is None

    url = engine.url.render_as_string(hide_password=False)
    with engine.begin() as conn:  # the forget owed before the upgrade is done by now
        conn.execute(text("DELETE FROM forget_work"))
    index = HistoryIndex.open(url)
    index.set_retention(180)
    index.set_retention(30, project="/p")
    assert index.retain(90, project="/p") == 1
    index.close()
    with engine.connect() as conn:
        # The table also says which secret rules the turns follow (history/store/rescan.py).
        settings = "SELECT count(*) FROM retention_settings WHERE project NOT LIKE '(secret %'"
        assert conn.execute(text(settings)).scalar() == 2
        assert conn.execute(text("SELECT project FROM retention_cutoffs")).scalar() == "/p"

    migrations.downgrade(engine, BEFORE)
    assert not {"retention_settings", "retention_cutoffs"} & set(inspect(engine).get_table_names())
    assert "asked_before" not in {c["name"] for c in inspect(engine).get_columns("forget_work")}
    migrations.upgrade(engine, HEAD)
    reopened = HistoryIndex.open(url)
    assert not reopened.retention()  # the settings went with the downgrade
    reopened.close()


def test_a_recent_turn_survives_the_round_trip(engine: Engine) -> None:
    migrations.upgrade(engine, HEAD)
    url = engine.url.render_as_string(hide_password=False)
    index = HistoryIndex.open(url)
    assert index.record(
        turn_id="t2",
        session_id="s",
        project="/p",
        asked="parse again",
        answered="",
        asked_at=datetime.now(UTC) - timedelta(days=1),
    )
    index.close()
    migrations.downgrade(engine, BEFORE)
    migrations.upgrade(engine, HEAD)
    reopened = HistoryIndex.open(url)
    assert reopened.count() == 1 and reopened.search("parse", project="/p")
    reopened.close()

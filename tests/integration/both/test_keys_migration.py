"""Revision 0018 on both dialects: up with rows (the turns kept), keys and audit events stored,
and down again (its tables gone, the turns still there)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, text

from history import HistoryIndex
from history.access import LOCAL_ACTOR, Right
from history.store import migrations
from tests.helpers.engines import unmigrated

BEFORE, HEAD = "0017_retention", "0018_keys_and_audit"
TABLES = {"access_keys", "audit_events"}


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    yield from unmigrated(request, tmp_path)


def count(engine: Engine, table: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def test_0018_up_and_down_with_rows(engine: Engine) -> None:
    migrations.upgrade(engine, BEFORE)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO turns (turn_id, session_id, project, asked_at, tainted, asked,"
                " answered, files, edited, tools, work)"
                " VALUES ('t1', 's1', '/p', :at, false, 'parse it', 'ok', '[]', '[]', '[]', '')"
            ),
            {"at": datetime(2026, 1, 2, 3, 4, 5)},
        )
    migrations.upgrade(engine, HEAD)
    assert set(inspect(engine).get_table_names()) >= TABLES
    assert count(engine, "turns") == 1

    url = engine.url.render_as_string(hide_password=False)
    index = HistoryIndex.open(url)
    _stored, key = index.members.add("ci", [Right.RECORD], ["/p"], LOCAL_ACTOR)
    assert index.members.access(key) is not None
    index.close()
    assert count(engine, "access_keys") == 1 and count(engine, "audit_events") == 1

    migrations.downgrade(engine, BEFORE)
    assert not TABLES & set(inspect(engine).get_table_names())
    assert count(engine, "turns") == 1
    migrations.upgrade(engine, HEAD)
    reopened = HistoryIndex.open(url)
    assert not reopened.members.keys() and not reopened.members.apply
    assert reopened.turn("t1") is not None
    reopened.close()

"""Revision 0019 on PostgreSQL: up with rows (every turn moved into the partition of its
project, each turn id claimed once, the summaries and the search as they were), and down again
(one plain table, the turns and the turn id's uniqueness back); SQLite unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, text

from history import HistoryIndex
from history.store import migrations
from tests.helpers.engines import unmigrated

BEFORE, HEAD = "0018_keys_and_audit", "0019_postgres_turns_by_project"
BESIDE = {"turn_ids", "scrub_partitions", "turns_waiting"}


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    yield from unmigrated(request, tmp_path)


def scalar(engine: Engine, sql: str) -> object:
    with engine.connect() as conn:
        return conn.execute(text(sql)).scalar_one()


def test_0019_up_and_down_with_rows(engine: Engine) -> None:
    migrations.upgrade(engine, BEFORE)
    with engine.begin() as conn:
        for n in range(40):
            conn.execute(
                text(
                    "INSERT INTO turns (turn_id, session_id, project, asked_at, tainted, asked,"
                    " answered, files, edited, tools, work) VALUES (:id, :s, :p, :at, false,"
                    " :asked, 'ok', '[]', '[]', '[]', '')"
                ),
                {
                    "id": f"t{n}",
                    "s": f"s{n % 7}",
                    "p": f"/work/p{n % 5}",
                    "at": datetime(2026, 1, 2, 3, n),
                    "asked": f"parse the zebra file {n}",
                },
            )
    migrations.upgrade(engine, HEAD)
    assert scalar(engine, "SELECT count(*) FROM turns") == 40
    if engine.dialect.name == "sqlite":
        assert not BESIDE & set(inspect(engine).get_table_names())
        return
    assert set(inspect(engine).get_table_names()) >= BESIDE
    assert scalar(engine, "SELECT relkind FROM pg_class WHERE relname = 'turns'") == "p"
    partitions = scalar(engine, "SELECT count(DISTINCT tableoid) FROM turns")
    assert isinstance(partitions, int) and partitions > 1
    assert scalar(engine, "SELECT count(*) FROM turn_ids") == 40
    assert scalar(engine, "SELECT sum(turns) FROM projects") == 40

    url = engine.url.render_as_string(hide_password=False)
    index = HistoryIndex.open(url)
    assert len(index.search("zebra", project="/work/p1", k=10)) == 8
    assert index.record(turn_id="t41", session_id="s", project="/work/p9", asked="a", answered="")
    assert index.turn("t3") is not None
    index.close()

    migrations.downgrade(engine, BEFORE)
    assert not BESIDE & set(inspect(engine).get_table_names())
    assert scalar(engine, "SELECT relkind FROM pg_class WHERE relname = 'turns'") == "r"
    assert scalar(engine, "SELECT count(*) FROM turns") == 41
    with pytest.raises(Exception, match="uq_turns_turn_id"), engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO turns (turn_id, session_id, project, asked_at, tainted, asked,"
                " answered, files, edited, tools, work)"
                " VALUES ('t1', 's', '/elsewhere', now(), false, '', '', '[]', '[]', '[]', '')"
            )
        )
    migrations.upgrade(engine, HEAD)
    reopened = HistoryIndex.open(url)
    assert len(reopened.search("zebra", k=50)) == 40
    reopened.close()

"""Revision 0019: the words' counts an earlier version kept beside FTS5 counted the work column,
which the ranking now leaves out; upgraded, a file holds none of them (the upkeep counts again),
and its turns and the common words' lists are all there. PostgreSQL keeps no such counts: the
revision leaves it as it was."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from history.store import migrations
from tests.helpers.engines import unmigrated

BEFORE, HEAD = "0019_postgres_turns_by_project", "0020_counts_without_work"
LISTS = ("best_turns_lists", "best_turns")


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    yield from unmigrated(request, tmp_path)


def test_0019_empties_the_counts_kept_with_the_work_and_keeps_the_rest(engine: Engine) -> None:
    migrations.upgrade(engine, BEFORE)
    sqlite = engine.dialect.name == "sqlite"
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO turns (turn_id, session_id, project, asked_at, tainted, asked,"
                " answered, files, edited, tools, work)"
                " VALUES ('t1', 's1', '/p', '2026-12-01 10:00:00', false, 'parse it', 'ok',"
                " '[]', '[]', '[]', '$ pytest')"
            )
        )
        if sqlite:
            conn.execute(text("INSERT INTO word_counts VALUES ('pars', 1, 1)"))
            conn.execute(text("INSERT INTO best_turns_lists VALUES ('pars', 1, 4.0, 0.0, 1)"))
            conn.execute(text("INSERT INTO best_turns VALUES ('pars', 1, '/p', 3.0, 4)"))
    migrations.upgrade(engine, HEAD)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT turn_id FROM turns")).scalars().all() == ["t1"]
        if sqlite:
            assert conn.execute(text("SELECT count(*) FROM word_counts")).scalar_one() == 0
            for table in LISTS:
                assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one() == 1
    migrations.downgrade(engine, BEFORE)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turns")).scalar_one() == 1

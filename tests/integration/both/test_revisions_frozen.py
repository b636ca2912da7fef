"""Revisions are frozen: each makes the schema it made when it was released, and a database
upgraded from 0001 one revision at a time, holding rows at every step, ends with the schema a
fresh database gets (every table, column, index, trigger and function), on SQLite and on
PostgreSQL.

tests/fixtures/schema_digests.json holds the digest of the schema after each revision
(tests/helpers/schema_shape.py): a new revision adds its line
(`python -m tests.helpers.schema_shape URL`, the URL of an empty PostgreSQL database, prints
them all); an old revision's line never changes,
since a database in the field was made by the revision as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from history.store import migrations
from history.store.postgres import project_index, question_index
from history.store.postgres import schema as pg_schema
from history.store.postgres.engine import create_postgres_engine
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts
from tests.helpers import postgres, schema_shape
from tests.helpers.paths import FIXTURES

DIGESTS = FIXTURES / "schema_digests.json"
# A few of what head makes, as the schema names them: the comparison reads every kind.
SOME_OF_HEAD = {
    "sqlite": {
        "table turns",
        "table turns_fts",
        "trigger turns_summary_ai",
        "fts5 option automerge",
    },
    "postgresql": {
        "column turns.search_vector",
        "index ix_turns_project_words",
        "trigger turns.turns_summary_ai",
        "function recall_words(body text)",
    },
}


def revisions() -> list[str]:
    script = ScriptDirectory.from_config(migrations.alembic_config())
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


@dataclass
class Walked:
    """A database upgraded one revision at a time, a row added in each plain table at every
    step; and a fresh one, upgraded to head at once."""

    digests: dict[str, str]
    upgraded: schema_shape.Schema
    fresh: schema_shape.Schema
    turns: int


def walk(stepwise: Engine, fresh: Engine) -> Walked:
    digests, turns = {}, 0
    for step, revision in enumerate(revisions()):
        migrations.upgrade(stepwise, revision)
        with stepwise.connect() as conn:
            digests[revision] = schema_shape.digest(schema_shape.schema(conn))
        turns = schema_shape.add_rows(stepwise, step)
    migrations.upgrade(fresh)
    with stepwise.connect() as upgraded, fresh.connect() as made:
        return Walked(digests, schema_shape.schema(upgraded), schema_shape.schema(made), turns)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def walked(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Walked]]:
    if request.param == "sqlite":
        folder = tmp_path_factory.mktemp("frozen")
        engines = [
            sqlite_db.create_sqlite_engine(sqlite_db.database_url(folder / name))
            for name in ("stepwise.db", "fresh.db")
        ]
        with engines[0].connect() as conn:
            if not fts.fts5_available(conn):  # pragma: no cover - every supported build has it
                pytest.skip("this SQLite has no FTS5: its schema differs from the digests'")
        try:
            yield request.param, walk(*engines)
        finally:
            for engine in engines:
                engine.dispose()
        return
    postgres.require_server()
    for empty in postgres.empty_url():
        for copied in postgres.fresh_url():
            # The template database was made by upgrading an empty database to head.
            stepwise, fresh = create_postgres_engine(empty), create_postgres_engine(copied)
            try:
                walked = walk(stepwise, fresh)
            finally:
                stepwise.dispose()
                fresh.dispose()
            yield request.param, walked


def test_every_revision_makes_the_schema_it_made_when_it_was_released(
    walked: tuple[str, Walked],
) -> None:
    dialect, found = walked
    released = json.loads(DIGESTS.read_text())[dialect]
    new = [revision for revision in found.digests if revision not in released]
    assert not new, (
        f"{new}: add their lines of what "
        "`python -m tests.helpers.schema_shape POSTGRES_URL` prints "
        f"(an empty database's URL) to {DIGESTS.name}"
    )
    changed = [
        revision for revision, digest in found.digests.items() if released[revision] != digest
    ]
    assert not changed, (
        f"{changed[0]} now makes another {dialect} schema than it made when released: a "
        "revision is frozen, its DDL written out in it; change the schema in a new revision"
    )


def test_an_old_database_upgraded_step_by_step_ends_with_a_fresh_databases_schema(
    walked: tuple[str, Walked],
) -> None:
    dialect, found = walked
    upgraded, fresh = found.upgraded, found.fresh
    differing = {
        name: (upgraded.get(name), fresh.get(name))
        for name in sorted(upgraded.keys() | fresh.keys())
        if upgraded.get(name) != fresh.get(name)
    }
    assert not differing, f"{dialect}: upgraded from 0001 vs fresh: {differing}"
    assert SOME_OF_HEAD[dialect] <= fresh.keys()
    # Every turn added on the way is still there.
    assert found.turns == len(revisions())


def test_the_triggers_doctor_puts_back_are_the_ones_head_made(tmp_path: Path) -> None:
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(tmp_path / "history.db"))
    migrations.upgrade(engine)
    with engine.connect() as conn:
        made = schema_shape.schema(conn)
    with sqlite_db.writer(engine).begin() as conn:
        for statement in [*fts.drop_triggers_statements(), *fts.trigger_statements()]:
            conn.exec_driver_sql(statement)
    with engine.connect() as conn:
        assert schema_shape.schema(conn) == made
    engine.dispose()


def test_the_indexes_doctor_and_a_bulk_load_build_again_are_the_ones_head_made(
    fresh_postgres_url: str,
) -> None:
    engine = create_postgres_engine(fresh_postgres_url)
    rebuilt = {
        pg_schema.VECTOR_INDEX: pg_schema.index_statement(),
        pg_schema.ASKED_INDEX: question_index.index_statement(),
        project_index.INDEX: project_index.index_statement(),
    }
    try:
        with engine.connect() as conn:
            made = schema_shape.schema(conn)
        with engine.begin() as conn:
            for name, statement in rebuilt.items():
                conn.exec_driver_sql(f"DROP INDEX {name}")
                conn.exec_driver_sql(statement)
        with engine.connect() as conn:
            assert schema_shape.schema(conn) == made
    finally:
        engine.dispose()

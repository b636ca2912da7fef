"""bench.pg_load: a bench database holds every index a search asks, as record_many leaves it."""

from __future__ import annotations

from sqlalchemy import text

from bench import pg_load
from bench.corpus import default_end
from history import HistoryIndex
from history.store.postgres import project_index, schema
from tests.helpers.engines import engine_of


def test_a_loaded_database_holds_the_full_text_indexes_built_and_valid(
    fresh_postgres_url: str,
) -> None:
    pg_load.load(fresh_postgres_url, 300, seed=7, end=default_end(), mix="standard")
    index = HistoryIndex.open(fresh_postgres_url)
    try:
        with engine_of(index).connect() as conn:
            valid = set(
                conn.scalars(
                    text(
                        "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                        " WHERE i.indrelid = 'turns'::regclass AND i.indisvalid"
                    )
                )
            )
            turns = conn.execute(text("SELECT count(*) FROM turns")).scalar_one()
    finally:
        index.close()
    assert turns == 300
    assert {schema.VECTOR_INDEX, schema.ASKED_INDEX, project_index.INDEX} <= valid

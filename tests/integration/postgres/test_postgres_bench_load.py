"""bench.pg_load: a bench database holds every index a search asks, as record_many leaves it."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from bench import pg_load, postgres
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


def test_the_search_bench_readies_the_searches_first_when_asked(
    fresh_postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bench.postgres --warm-up`: the searches timed as a service's first ones are."""
    pg_load.load(fresh_postgres_url, 100, seed=7, end=default_end(), mix="standard")
    argv = ["--url", fresh_postgres_url, "--size", "100", "--queries", "4", "--phases", "search"]
    capsys.readouterr()  # what the load said
    postgres.main([*argv, "--warm-up"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    metrics = [line["metric"] for line in lines]
    assert metrics[0] == "warm_up" and lines[0]["value"] > 0
    assert "search_every_p95" in metrics and "top5_overlap_project" in metrics

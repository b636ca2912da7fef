"""An every-project search runs plans its connection made for an earlier search (search.py:
planning a statement over 64 partitions costs as much as running it): nothing done on its
connection between two searches (the retention settings read for every search, whether a
project is stored before a one-project search, a view) may end a transaction with a ROLLBACK,
on which psycopg deallocates every statement it prepared."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.postgres import search
from tests.helpers.engines import engine_of, searches_engine_of
from tests.helpers.postgres import ranking_statements

WORDS = ["login", "flow", "cache", "token", "retry"]
PREPARED = text(
    "SELECT statement, prepare_time FROM pg_prepared_statements"
    " WHERE statement LIKE '%ts_rank%' ORDER BY prepare_time, statement"
)


@pytest.fixture
def index(postgres_url: str) -> Any:
    opened = HistoryIndex.open(postgres_url)
    now = datetime.now(UTC)
    turns = [
        ImportedTurn(
            turn_id=f"t{n}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 3}",
            asked=f"{WORDS[n % 5]} {WORDS[(n * 3) % 5]}",
            answered=f"{WORDS[(n + 1) % 5]} answer",
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(minutes=n),
        )
        for n in range(60)
    ]
    assert opened.record_many(turns).new == 60
    yield opened
    opened.close()


def one_connection(index: HistoryIndex) -> None:
    """Every pool of the index emptied: the searches then run on one connection, ours too."""
    engine_of(index).dispose()
    searches_engine_of(index).dispose()


def prepared(index: HistoryIndex) -> list[tuple[str, datetime]]:
    """The ranking statements the searches' pooled connection holds prepared, and when each
    was. The read ends with a COMMIT, which keeps them."""
    with searches_engine_of(index).connect() as conn:
        found = [(str(row[0]), row[1]) for row in conn.execute(PREPARED)]
        conn.commit()
    return found


def test_a_repeated_every_project_search_runs_the_plans_it_prepared_before(
    index: HistoryIndex,
) -> None:
    one_connection(index)
    first = index.search("login token", k=3)
    before = prepared(index)
    assert before, "the every-project search prepared its ranking statements"
    again = index.search("login token", k=3)
    assert prepared(index) == before  # none deallocated and prepared anew
    assert [h.turn_id for h in again] == [h.turn_id for h in first]


def test_asking_for_vectors_before_a_search_keeps_its_plans(index: HistoryIndex) -> None:
    """With search by meaning on, a search first asks whether any turn has a vector."""
    one_connection(index)
    index.search("cache retry", k=3)
    before = prepared(index)
    assert index._repository.vectors_stored() is False
    index.search("cache retry", k=3)
    assert prepared(index) == before


def test_one_project_searches_and_views_between_every_project_searches_keep_their_plans(
    index: HistoryIndex,
) -> None:
    """A one-project search first asks whether its project is stored, and a view reads the
    turns of a conversation: reads that end with a ROLLBACK. With the searches on the same
    connection, the next every-project search would prepare and plan all its statements again
    (tens of ms over 64 partitions at 1M turns)."""
    one_connection(index)
    first = index.search("login token", k=3)
    before = prepared(index)
    assert before
    for project in ("/p1", "/p2", "/nowhere"):
        index.search("cache retry", project=project, k=3)
        assert index.conversation("s1")
        assert index.turn("t7") is not None
        again = index.search("login token", k=3)
        assert [h.turn_id for h in again] == [h.turn_id for h in first]
    assert set(before) <= set(prepared(index))  # the same statements, prepared then


WORD_COUNT_PLANS = text(
    "SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)"
    " FROM pg_prepared_statements WHERE statement LIKE 'SELECT count(*) FROM turns WHERE %'"
)


def test_a_one_project_search_counts_words_with_the_plan_its_connection_made_before(
    index: HistoryIndex,
) -> None:
    """A word's count reads every partition: planned for each word, as a one-project search
    plans its own statements, it took 6-14 ms over 64 partitions at 1M turns. Regression: the
    counts were planned afresh at every word of every one-project search."""
    one_connection(index)
    for words in ("login token", "cache retry", "flow login", "token cache"):
        assert index.search(words, project="/p1", k=3)
    with searches_engine_of(index).connect() as conn:
        generic, custom = conn.execute(WORD_COUNT_PLANS).one()
        conn.commit()
    assert custom == 0 and generic >= 7  # prepared at its first run, planned once


def test_setting_retention_leaves_the_search_finding_the_same_turns(
    index: HistoryIndex,
) -> None:
    """The retention read that now commits still applies: turns past it are not found."""
    found = {h.turn_id for h in index.search("login", k=60)}
    assert "t59" in found
    index.set_retention(1)
    with engine_of(index).begin() as conn:
        moved = "UPDATE turns SET asked_at = asked_at - interval '2 days' WHERE turn_id = 't59'"
        conn.execute(text(moved))
    assert "t59" not in {h.turn_id for h in index.search("login", k=60)}


def test_records_and_one_project_searches_beside_a_partition_being_rewritten(
    index: HistoryIndex,
) -> None:
    """The plans kept between searches are the every-project search's only: after many searches
    and records on the same connections, a record or a one-project search still reads its own
    project's partition, not one another project's forget is rewriting."""
    for n in range(8):  # past psycopg's five runs before it prepares, and the planner's five
        index.search("login token")
        index.search("login token", project="/p2")
        index.record(
            turn_id=f"warm-{n}", session_id="warm", project="/p2", asked="token", answered=""
        )
    with engine_of(index).connect() as conn:
        where = "SELECT DISTINCT tableoid::regclass::text FROM turns WHERE project = :project"
        (held,) = conn.execute(text(where), {"project": "/p1"}).scalars()
        (other,) = conn.execute(text(where), {"project": "/p2"}).scalars()
        conn.commit()
    assert held != other
    conninfo = engine_of(index).url.set(drivername="postgresql")
    with psycopg.connect(conninfo.render_as_string(hide_password=False)) as rewriting:
        rewriting.execute(f"LOCK TABLE {held} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL does
        for n in range(8):
            started = time.monotonic()
            said = index.record_outcome(
                turn_id=f"beside-{n}", session_id="beside", project="/p2", asked="x", answered=""
            )
            assert index.search("login token", project="/p2")
            assert said == "new" and time.monotonic() - started < 0.9
        rewriting.rollback()


def test_searches_one_after_another_run_on_the_connection_that_planned_them(
    index: HistoryIndex,
) -> None:
    """The search pool hands out the connection used last: taken in turn, each of its
    connections would plan every kind of statement over 64 partitions anew."""
    one_connection(index)
    searches = searches_engine_of(index)
    for conn in [searches.connect() for _ in range(3)]:
        conn.close()  # three connections idle in the pool
    for words in ("login token", "cache retry", "login token"):
        index.search(words, k=3)
    held = [searches.connect() for _ in range(3)]
    try:
        planned = [len(conn.execute(PREPARED).all()) for conn in held]
        for conn in held:
            conn.commit()
    finally:
        for conn in held:
            conn.close()
    assert sorted(planned)[:2] == [0, 0] and max(planned) > 0, planned


@pytest.mark.parametrize("project", [None, "/p1"], ids=["every project", "one project"])
def test_a_search_binds_its_words_conditions_as_values_so_its_statements_repeat(
    index: HistoryIndex, project: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: each arrangement of words a part asked was SQL of its own (`plainto_tsquery(
    :w0) && !!(...)`), so a service met 90 kinds of statement at 1M turns, each planned over 64
    partitions at its first run (every-project p95 50-72 ms in a new process; 30-32 after)."""
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", 0)  # part by part
    kinds: set[str] = set()
    for words in ("login token", "token flow", "cache retry", "retry login", "flow cache"):
        statements, found = ranking_statements(index, words, project)
        assert found
        for statement in statements:
            where = statement.split(" WHERE ", 1)[1]
            assert "plainto_tsquery" not in where and "to_tsquery" not in where, where
            kinds.add(statement)
    assert len(kinds) <= 4, "the same few statements for any two words"

"""A forget on PostgreSQL stops nobody: `turns` is partitioned by a hash of the project, the scrub
rewrites only the partitions that held the forgotten rows, a search of another project never
waits for one being rewritten, a record that meets one waits and gets in, and a forget while
processes record and search loses no turn and leaves none of the forgotten text in the files."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, event, text
from sqlalchemy.engine import make_url

from bench import pg_forget_load, pg_load
from bench.corpus import default_end
from bench.measure import percentile
from history import HistoryIndex, upkeep
from history.api import create_app
from history.store.postgres import rewriting
from history.tools.recall_history import PARTIAL, RecallHistoryTool
from tests.helpers.engines import engine_of, searches_engine_of
from tests.helpers.loopback import LOOPBACK
from tests.helpers.pg_files import relation_bytes, scrubbed, url
from tests.helpers.turns import raw_turn

_FILES = text(
    "SELECT c.relname, c.relfilenode FROM pg_partition_tree('turns') t"
    " JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf"
)
_PARTITION_OF = text("SELECT DISTINCT tableoid::regclass::text FROM turns WHERE project = :project")


@pytest.fixture
def index(postgres_url: str) -> Iterator[HistoryIndex]:
    opened = HistoryIndex.open(postgres_url)
    yield opened
    opened.close()


def _fill(index: HistoryIndex, projects: int = 12, turns: int = 10) -> None:
    for p in range(projects):
        for n in range(turns):
            index.record(
                turn_id=f"t-{p}-{n}",
                session_id=f"s-{p}-{n % 3}",
                project=f"/work/project-{p}",
                asked=f"how is part {n} of project {p} built",
                answered="with care",
            )


def _conninfo(index: HistoryIndex) -> str:
    url = engine_of(index).url.set(drivername="postgresql")
    return make_url(url).render_as_string(hide_password=False)


def test_a_forget_rewrites_only_the_partitions_of_the_forgotten_project(
    index: HistoryIndex,
) -> None:
    _fill(index)
    index.record(
        turn_id="doomed",
        session_id="doomed",
        project="/work/project-3",
        asked="the zebracanary plan",
        answered="",
    )
    with engine_of(index).connect() as conn:
        before = {name: node for name, node in conn.execute(_FILES)}
        (doomed,) = conn.execute(_PARTITION_OF, {"project": "/work/project-3"}).scalars()
    assert index.forget_project("/work/project-3") == 11
    assert scrubbed(index)
    with engine_of(index).connect() as conn:
        after = {name: node for name, node in conn.execute(_FILES)}
    rewritten = {name for name, node in after.items() if before[name] != node}
    assert rewritten == {doomed}
    assert len(after) > 30  # the other partitions, their files as they were
    assert b"zebracanary" not in relation_bytes(engine_of(index).url.render_as_string(False))
    assert index.search("project built", project="/work/project-4")


def test_a_scrub_another_process_is_running_is_left_to_it(index: HistoryIndex) -> None:
    """Regression: every process's upkeep took up an owed scrub at once (at 1M, six rewrites ran
    together), each rewriting the partitions it had read as noted, a partition rewritten twice
    and every statement reading it queued behind the second rewrite's lock request."""
    _fill(index, projects=3, turns=4)
    with engine_of(index).connect() as conn:
        before = {name: node for name, node in conn.execute(_FILES)}
    with psycopg.connect(_conninfo(index), autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(hashtext('recall-history scrub'))")
        assert index.forget_project("/work/project-1") == 4
        assert index.purge_pending  # owed, left to the process rewriting
        with engine_of(index).connect() as conn:
            assert {name: node for name, node in conn.execute(_FILES)} == before
    assert scrubbed(index)  # its turn over: the next upkeep rewrites
    with engine_of(index).connect() as conn:
        after = {name: node for name, node in conn.execute(_FILES)}
    assert len([name for name in after if after[name] != before[name]]) == 1


_LAST_ANALYZED = text("SELECT pg_stat_get_last_analyze_time(CAST(:partition AS regclass))")
_INSERTED = text(
    "SELECT sum(pg_stat_get_tuples_inserted(relid)) FROM pg_partition_tree('turns') WHERE isleaf"
)


def _inserted(conn: Connection) -> int:
    conn.exec_driver_sql("SELECT pg_stat_clear_snapshot()")
    return int(conn.execute(_INSERTED).scalar_one())


def _last_analyzed(index: HistoryIndex, partition: str) -> Any:
    with engine_of(index).connect() as conn:
        return conn.execute(_LAST_ANALYZED, {"partition": partition}).scalar_one()


def test_a_scrub_analyzes_a_partition_only_when_a_forget_changed_much_of_it(
    index: HistoryIndex,
) -> None:
    """The rewrite's ANALYZE took 17 s of the largest partition's 44 s at 1M, for a forget of a
    few turns that changed none of its statistics: now only a partition whose rows moved by a
    tenth is analyzed, once the scrub is done."""
    with engine_of(index).connect() as conn:
        inserted = _inserted(conn)
    index.record_many(
        raw_turn(f"t{n}", f"s{n // 10}", "/work/large", f"how is part {n} built", "with care")
        for n in range(200)
    )
    with engine_of(index).connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        # A backend reports the rows it changed up to 10 s after its commit: reported after the
        # ANALYZE, the 200 rows would read as changed since it. The connection the import used
        # (the pool hands out the last one) reports them now.
        conn.exec_driver_sql("SELECT pg_stat_force_next_flush()")
        deadline = time.monotonic() + 30
        while _inserted(conn) < inserted + 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        conn.exec_driver_sql("ANALYZE turns")
        (partition,) = conn.execute(_PARTITION_OF, {"project": "/work/large"}).scalars()
    analyzed = _last_analyzed(index, partition)
    assert analyzed is not None
    assert index.forget_session("s3") == 10
    assert scrubbed(index)
    assert _last_analyzed(index, partition) == analyzed  # 10 of 200 rows: left as they were
    assert index.forget_project("/work/large") == 190
    assert scrubbed(index)
    assert _last_analyzed(index, partition) > analyzed


def test_a_search_of_another_project_does_not_wait_for_a_partition_being_rewritten(
    index: HistoryIndex,
) -> None:
    _fill(index)
    with engine_of(index).connect() as conn:
        (held,) = conn.execute(_PARTITION_OF, {"project": "/work/project-3"}).scalars()
        (other,) = conn.execute(_PARTITION_OF, {"project": "/work/project-5"}).scalars()
    assert held != other
    with psycopg.connect(_conninfo(index)) as rewriting:
        rewriting.execute(f"LOCK TABLE {held} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL does
        for _ in range(8):  # past the prepared statements' threshold: generic plans too
            started = time.monotonic()
            found = index.search("part built", project="/work/project-5")
            assert time.monotonic() - started < 1.0
            assert found and {hit.project for hit in found} == {"/work/project-5"}
            assert index.turn("t-5-1") is not None
        rewriting.rollback()


def test_an_every_project_search_leaves_out_a_partition_being_rewritten_and_says_so(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(index)
    with engine_of(index).connect() as conn:
        (held,) = conn.execute(_PARTITION_OF, {"project": "/work/project-3"}).scalars()
        projects = [f"/work/project-{p}" for p in range(12)]
        beside = {
            p for p in projects if conn.execute(_PARTITION_OF, {"project": p}).scalar() == held
        }
    everywhere = set(projects)
    assert {hit.project for hit in index.search("project 3 built", k=50)} == everywhere
    monkeypatch.setattr(rewriting, "SEARCH_WAIT_MS", 300)  # the engine's 5 s, shortened
    with psycopg.connect(_conninfo(index)) as scrub:
        scrub.execute(f"LOCK TABLE {held} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL does
        for _ in range(2):  # its plans prepared, then run again
            started = time.monotonic()
            found = index.search("project 3 built", k=50)
            assert time.monotonic() - started < 4.0  # one wait of SEARCH_WAIT_MS, not the rewrite
            assert found.partial and not found.approximate
            assert {hit.project for hit in found} == everywhere - beside
        # In one project: its own partition held, nothing, partially; another's, all of it.
        started = time.monotonic()
        found = index.search("project 3 built", project="/work/project-3", k=50)
        assert time.monotonic() - started < 4.0
        assert found == [] and found.partial
        other = next(iter(everywhere - beside))
        found = index.search("project 3 built", project=other, k=50)
        assert found and not found.partial and {hit.project for hit in found} == {other}
        told = RecallHistoryTool(index, "/work/project-5").run("project 3 built", everywhere=True)
        assert PARTIAL in told.splitlines()[0]
        with TestClient(create_app(index), base_url=LOOPBACK) as client:
            answer = client.get("/api/code/history", params={"q": "project 3 built"}).json()
        assert answer["partial"] is True and answer["hits"]
        scrub.rollback()
    found = index.search("project 3 built", k=50)
    assert not found.partial and {hit.project for hit in found} == everywhere
    told = RecallHistoryTool(index, "/work/project-5").run("project 3 built", everywhere=True)
    assert PARTIAL not in told


# Of the statements a connection prepared, those reading `turns` in every project or in one.
_PLANS = (
    "SELECT coalesce(sum(generic_plans) FILTER (WHERE statement NOT LIKE '%project = $%'), 0),"
    " coalesce(sum(generic_plans) FILTER (WHERE statement LIKE '%project = $%'), 0)"
    " FROM pg_prepared_statements WHERE statement LIKE '%FROM turns%WHERE%'"
)


def _generic_plans(index: HistoryIndex, search: Callable[[], object]) -> tuple[int, int]:
    """The runs of a plan made before (every project, one project) on the connections `search`
    read `turns` through."""
    drivers: dict[int, Any] = {}

    def keep(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if "FROM turns" in statement:
            drivers[id(conn.connection.driver_connection)] = conn.connection.driver_connection

    event.listen(searches_engine_of(index), "before_cursor_execute", keep)
    try:
        search()
    finally:
        event.remove(searches_engine_of(index), "before_cursor_execute", keep)
    every, one = 0, 0
    for driver in drivers.values():
        row = driver.execute(_PLANS).fetchone()
        driver.commit()  # a rollback would drop the connection's prepared statements
        every, one = every + int(row[0]), one + int(row[1])
    return every, one


def test_an_every_project_search_runs_the_plan_its_connection_made_before(
    index: HistoryIndex,
) -> None:
    """64 partitions cost milliseconds to plan: an every-project search plans its statements
    once per connection; a one-project search is planned for its project's partition each time
    (a plan made before would lock every partition, one being rewritten too)."""
    _fill(index)

    def every() -> None:
        for _ in range(4):
            assert index.search("part built")

    def one() -> None:
        for _ in range(8):
            assert index.search("part built", project="/work/project-5")

    assert _generic_plans(index, every)[0] >= 2
    assert _generic_plans(index, one)[1] == 0


def test_a_record_meeting_a_partition_being_rewritten_waits_beside_it_and_moves_in(
    index: HistoryIndex,
) -> None:
    _fill(index, projects=4, turns=2)
    with engine_of(index).connect() as conn:
        (held,) = conn.execute(_PARTITION_OF, {"project": "/work/project-1"}).scalars()
    locked, release = threading.Event(), threading.Event()

    def rewrite() -> None:
        with psycopg.connect(_conninfo(index)) as rewriting:
            rewriting.execute(f"LOCK TABLE {held} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL
            locked.set()
            release.wait(30)
            rewriting.rollback()

    holder = threading.Thread(target=rewrite)
    holder.start()
    assert locked.wait(10)
    started = time.monotonic()
    said = index.record_outcome(
        turn_id="live", session_id="live", project="/work/project-1", asked="zebra", answered=""
    )
    assert said == "spooled" and time.monotonic() - started < 4  # not the 5 s lock timeout
    assert index.record_outcome(
        turn_id="elsewhere", session_id="e", project="/work/project-2", asked="x", answered=""
    ) in ("new", "spooled")
    release.set()
    holder.join()
    index.tidy()
    turn = index.turn("live")
    assert turn is not None and turn.project == "/work/project-1"
    assert [hit.turn_id for hit in index.search("zebra")] == ["live"]
    with engine_of(index).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turns_waiting")).scalar_one() == 0


def _record_while_held(
    index: HistoryIndex, held: str, turn_id: str, session_id: str, asked: str
) -> None:
    """Record a turn while its partition is held as a rewrite holds it: it waits beside it."""
    with psycopg.connect(_conninfo(index)) as rewriting:
        rewriting.execute(f"LOCK TABLE {held} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL does
        said = index.record_outcome(
            turn_id=turn_id,
            session_id=session_id,
            project="/work/project-1",
            asked=asked,
            answered="",
        )
        assert said == "spooled"
        rewriting.rollback()


def test_a_forget_leaves_no_text_in_the_table_live_turns_wait_in(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Upkeep (which moves waiting turns in) runs when this test asks, not on its own.
    monkeypatch.setattr(upkeep, "QUIET_SECONDS", 3600.0)
    index = HistoryIndex.open(postgres_url)
    _fill(index, projects=3, turns=2)
    with engine_of(index).connect() as conn:
        (held,) = conn.execute(_PARTITION_OF, {"project": "/work/project-1"}).scalars()
    # One waits and moves in (its bytes stay behind, dead), one is still waiting at the forget.
    _record_while_held(index, held, turn_id="moved", session_id="s-m", asked="zebramovedin")
    index.tidy()
    assert index.turn("moved") is not None
    _record_while_held(index, held, turn_id="waits", session_id="s-w", asked="zebrastillwaits")
    written = relation_bytes(url(index))
    assert b"zebramovedin" in written and b"zebrastillwaits" in written
    with engine_of(index).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turns_waiting")).scalar_one() == 1
    assert index.forget_sessions(["s-m", "s-w"]) == 1  # the stored one; the waiting one too
    assert scrubbed(index)
    written = relation_bytes(url(index))
    assert b"zebramovedin" not in written and b"zebrastillwaits" not in written
    index.tidy()
    assert index.turn("waits") is None and not index.search("zebrastillwaits")
    assert index.search("project built", project="/work/project-1")
    index.close()


def test_a_record_does_not_wait_for_another_projects_partition_being_rewritten(
    index: HistoryIndex,
) -> None:
    _fill(index, projects=4, turns=2)
    with engine_of(index).connect() as conn:
        (held,) = conn.execute(_PARTITION_OF, {"project": "/work/project-1"}).scalars()
        (other,) = conn.execute(_PARTITION_OF, {"project": "/work/project-2"}).scalars()
    assert held != other
    with psycopg.connect(_conninfo(index)) as rewriting:
        rewriting.execute(f"LOCK TABLE {held} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL does
        for n in range(8):  # past the triggers' five plans for their values: cached plans too
            started = time.monotonic()
            said = index.record_outcome(
                turn_id=f"beside-{n}",
                session_id="beside",
                project="/work/project-2",
                asked="a turn of another project",
                answered="",
            )
            assert said == "new" and time.monotonic() - started < 0.9
        rewriting.rollback()


def test_a_turn_id_recorded_under_another_project_is_stored_once(index: HistoryIndex) -> None:
    index.record(
        turn_id="moved", session_id="s", project="/work/a", asked="first home", answered=""
    )
    index.record(
        turn_id="moved", session_id="s", project="/work/b", asked="second home", answered=""
    )
    with engine_of(index).connect() as conn:
        stored = conn.execute(text("SELECT project FROM turns WHERE turn_id = 'moved'")).all()
        claims = conn.execute(text("SELECT project FROM turn_ids WHERE turn_id = 'moved'")).all()
    assert stored == [("/work/b",)] and claims == [("/work/b",)]
    turn = index.turn("moved")
    assert turn is not None and turn.asked == "second home"
    assert index.forget_project("/work/b") == 1
    with engine_of(index).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turn_ids")).scalar_one() == 0


def test_a_forget_under_load_loses_no_turn_and_leaves_no_text(fresh_postgres_url: str) -> None:
    pg_load.load(fresh_postgres_url, 5_000, seed=7, end=default_end(), mix="standard")
    _, loaded, forgotten = pg_forget_load.run(
        fresh_postgres_url,
        recorders=2,
        searchers=1,  # searches back to back: each searcher keeps the server busy
        every=0.1,
        quiet=0.5,
        session_turns=30,
        project_turns=300,
        settle=1.0,
        limits=(60.0, 120.0),
    )
    assert len(loaded.stored) > 20 and loaded.failed == 0 and loaded.lost == 0
    assert [f.what for f in forgotten] == ["session", "project"]
    for f in forgotten:
        assert f.turns > 3 and f.gone and f.scrubbed_s < 60
    assert loaded.search_ms["every"] and loaded.search_ms["project"]
    # No search waited for the whole of a rewrite behind a lock timeout.
    assert percentile(loaded.search_ms["project"], 100) < 5_000

"""PostgreSQL with pgvector (revision 0023, history/meaning/neighbours.py): the server finds a
search's nearest vectors through its graphs, so no process loads them; the answer is the
matrix's; a forgotten turn's vector leaves every file of the graphs with the forget's scrub; and
a database that held vectors before the revision gets them in the graphs, and back out.

They run on a server of their own with pgvector built in (tests/helpers/pgvector.py): the local
server may have none."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

import numpy as np
import psycopg
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from history import HistoryIndex
from history.meaning import neighbours
from history.meaning.embedder import HashedWords
from history.meaning.vectors import quantized
from history.store import migrations
from history.store.head import SCHEMA_HEAD
from history.store.postgres.engine import create_postgres_engine
from history.store.postgres.pgvector import BEFORE
from tests.helpers import pgvector, postgres
from tests.helpers.cli_runs import recall
from tests.helpers.pg_files import relation_bytes, scrubbed, url
from tests.integration.both.test_meaning import MEANINGS, PARAPHRASE, TOPICS, topics
from tests.integration.postgres.test_postgres_meaning_forget import (
    DOOMED,
    KEPT,
    embedded_with_a_doomed_turn,
)

WORDS = ("parser", "cache", "token", "login", "deploy", "schema", "index", "retry", "socket")


def _count(engine: Engine, table: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def _stored_half(fake: HashedWords, words: str) -> bytes:
    """A turn's vector as turn_neighbours keeps it: the int8 values over 127, half floats."""
    int8 = quantized(fake.embed([words]))[0]
    return bytes((int8.astype(np.float32) / 127).astype(np.float16).tobytes())


def test_with_pgvector_a_search_that_runs_once_asks_the_server_and_reads_no_vector() -> None:
    index = HistoryIndex.open(pgvector.database_url())
    topics(index, "/work/app", "topic", "session")
    topics(index, "/work/other", "elsewhere", "other")
    assert index.meaning(HashedWords(MEANINGS)).embed() == 2 * len(TOPICS)
    assert _count(index.meaning().engine, "turn_neighbours") == 2 * len(TOPICS)
    once = HistoryIndex.open(url(index))  # as `recall search`
    once.meaning_once, once.meaning_search = True, True
    scan = once.meaning(HashedWords(MEANINGS))
    assert once.search(PARAPHRASE, project="/work/app", k=1)[0].turn_id == "topic-1"
    near = [hit.turn_id for hit in once.search(PARAPHRASE, project="/work/other", k=10)]
    assert near[0] == "elsewhere-1" and not [t for t in near if t.startswith("topic")]
    assert once.search(PARAPHRASE, project=None, k=1)[0].turn_id in {"topic-1", "elsewhere-1"}
    assert scan._scan._read == {}  # the server answered: no vector was read from the table
    once.close()
    # A long-running process keeps its matrix: faster once loaded, and exact in one project.
    index.meaning_search = True
    assert index.search(PARAPHRASE, project="/work/app", k=1)[0].turn_id == "topic-1"
    assert len(index.meaning().matrix.ids) == 2 * len(TOPICS)
    index.close()


def test_with_pgvector_the_nearest_are_the_matrixs() -> None:
    index = HistoryIndex.open(pgvector.database_url())
    rng = random.Random(7)
    for n in range(300):
        words = " ".join(rng.choice(WORDS) for _ in range(6))
        index.record(
            turn_id=f"t{n}", session_id=f"s{n % 9}", project=f"/p{n % 3}", asked=words, answered=""
        )
    fake = HashedWords()
    found = index.meaning(fake)
    found.embed()
    for query in ("parser cache", "login token retry", "socket worker queue deploy"):
        vector = fake.embed([query])[0]
        for project in (None, "/p1"):
            with found.engine.connect() as conn:
                by_server = neighbours.nearest(conn, fake.model_id, vector, 10, project)
                found.matrix.refresh(conn, fake.model_id)
            by_matrix = found.matrix.nearest(vector, 10, project)
            assert [score for _, score in by_server] == pytest.approx(
                [score for _, score in by_matrix], abs=2e-3
            )
            # Ties aside, the same turns.
            tied = {row for row, score in by_matrix if score > by_matrix[-1][1] + 2e-3}
            assert tied <= {row for row, _ in by_server}
    index.close()


def test_with_pgvector_a_forgotten_turns_vector_is_in_no_file_of_the_graphs_after_the_scrub() -> (
    None
):
    index = HistoryIndex.open(pgvector.database_url())
    try:
        fake = embedded_with_a_doomed_turn(index)
        doomed = _stored_half(fake, DOOMED)
        kept = _stored_half(fake, KEPT)
        before = relation_bytes(url(index), "turn_neighbours")
        assert doomed in before and kept in before  # the check can see them
        assert index.forget_session("doomed") == 1
        assert scrubbed(index)
        left = relation_bytes(url(index), "turn_neighbours")
        assert doomed not in left
        assert kept in left
        hits = index.search("zebra quokka", project=None, k=5)
        assert "doomed" not in [hit.turn_id for hit in hits]
    finally:
        index.close()


def test_a_database_with_vectors_before_pgvector_gets_them_in_the_graphs_and_back_out() -> None:
    address = pgvector.database_url()
    index = HistoryIndex.open(address)
    topics(index, "/work/app", "topic", "session")
    assert index.meaning(HashedWords(MEANINGS)).embed() == len(TOPICS)
    index.close()
    engine = create_postgres_engine(address)
    migrations.downgrade(engine, BEFORE)  # as it was: the vectors in turn_vectors alone
    with engine.connect() as conn:
        assert conn.execute(text("SELECT to_regclass('turn_neighbours')")).scalar_one() is None
    assert _count(engine, "turn_vectors") == len(TOPICS)
    migrations.upgrade(engine)
    assert _count(engine, "turn_neighbours") == len(TOPICS)
    again = HistoryIndex.open(address)
    again.meaning_once, again.meaning_search = True, True
    found = again.meaning(HashedWords(MEANINGS))
    assert again.search(PARAPHRASE, project="/work/app", k=1)[0].turn_id == "topic-1"
    assert found._scan._read == {}  # the server answered
    again.close()
    migrations.downgrade(engine, BEFORE)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT to_regclass('turn_neighbours')")).scalar_one() is None
    assert _count(engine, "turn_vectors") == len(TOPICS)
    engine.dispose()


def test_recall_migrate_takes_up_pgvector_installed_after_the_database_was_migrated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    address = pgvector.database_url()
    index = HistoryIndex.open(address)
    topics(index, "/work/app", "topic", "session")
    index.meaning(HashedWords(MEANINGS)).embed()
    index.close()
    engine = create_postgres_engine(address)
    # As a database migrated where the server had no pgvector: at head, without the graphs.
    migrations.downgrade(engine, BEFORE)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :head"), {"head": SCHEMA_HEAD})
    code, out, err = recall(capsys, "migrate", "--pgvector", "--database-url", address)
    assert (code, err) == (0, "")
    assert "the server finds the nearest vectors (pgvector)" in out
    assert _count(engine, "turn_neighbours") == len(TOPICS)
    again = recall(capsys, "migrate", "--pgvector", "--database-url", address)
    assert again[0] == 0 and _count(engine, "turn_neighbours") == len(TOPICS)
    engine.dispose()


def test_recall_migrate_says_when_the_server_offers_no_pgvector_and_refuses_sqlite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    postgres.require_server()
    address = postgres.emptied_url()
    code, out, err = recall(capsys, "migrate", "--pgvector", "--database-url", address)
    if postgres_offers_pgvector(address):  # a local server with pgvector: it is taken up
        assert code == 0 and "the server finds the nearest vectors" in out
    else:
        assert code == 1 and out == ""
        assert "the server offers no pgvector this role may create" in err
    code, _, err = recall(capsys, "migrate", "--pgvector", "--home", str(tmp_path))
    assert code == 2 and err.strip() == "recall migrate: --pgvector is for a PostgreSQL database"


def postgres_offers_pgvector(address: str) -> bool:
    engine = create_postgres_engine(address)
    with engine.connect() as conn:
        offered = "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        found = conn.execute(text(offered)).first() is not None
    engine.dispose()
    return found


def test_a_search_while_a_forget_rebuilds_its_projects_graph_is_answered_by_the_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    index = HistoryIndex.open(pgvector.database_url())
    index.meaning_once, index.meaning_search = True, True  # `recall search`: it asks the server
    topics(index, "/work/app", "topic", "session")
    index.meaning(HashedWords(MEANINGS)).embed()
    address = make_url(url(index)).set(drivername="postgresql")
    with psycopg.connect(address.render_as_string(hide_password=False)) as held:
        partition = held.execute(
            "SELECT tableoid::regclass::text FROM turn_neighbours WHERE project = '/work/app'"
        ).fetchone()
        assert partition is not None
        held.execute(f"LOCK TABLE {partition[0]} IN ACCESS EXCLUSIVE MODE")  # as VACUUM FULL
        started = time.monotonic()
        hits = index.search("login passwords", project="/work/app", k=3)
        waited = time.monotonic() - started
        paraphrased = index.search(PARAPHRASE, project="/work/app", k=3)
    assert hits[0].turn_id == "topic-1"
    assert paraphrased == []  # no word of it is stored: only the meaning would have found it
    assert waited < 2 * neighbours.LOCK_WAIT_MS / 1000 + 1
    assert "search by meaning failed" in caplog.text
    assert index.search(PARAPHRASE, project="/work/app", k=1)[0].turn_id == "topic-1"
    index.close()

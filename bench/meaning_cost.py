"""What search by meaning costs a search: lexical alone and hybrid, in the same run, both scopes,
over N turns of the standard mix with a synthetic vector (random, unit, int8) for every turn.

    python -m bench.meaning_cost [--turns 100000] [--queries 300] [--exact] [--query-model]
        [--out FILE]

The query's vector is synthetic too (no model run), so the difference is the vector search, the
blend and the reading of the dense side's turns; with --query-model the packaged model embeds
each query, as a real search does (beside the lexical search).
The matrix is loaded once, as a long-running process (the service, the MCP server) keeps it; the
load itself is timed apart. Prints one JSON line per measure.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

# history/meaning sets one BLAS thread before numpy is imported (as in `recall serve`); this
# file imports numpy first, so it sets the same default itself.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from sqlalchemy import Connection

from bench import corpus
from history import HistoryIndex
from history.index import MEANING_CANDIDATES
from history.meaning.embedder import DIMENSIONS, Embedder
from history.meaning.matrix import APPROXIMATE_FROM_ROWS, VectorMatrix
from history.meaning.vectors import quantized, writing

OUT = Path(__file__).resolve().parent / "out"


class RandomVectors(Embedder):
    model_id = "random-unit"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(11)

    def embed(self, texts: Any) -> Any:
        rows = self.rng.standard_normal((len(texts), DIMENSIONS)).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


class ModelQueries(Embedder):
    """The packaged model's embedding of each query (its real cost), under the stored random
    vectors' model id: the nearest turns mean nothing, what they cost is real."""

    model_id = RandomVectors.model_id

    def __init__(self) -> None:
        from history.meaning.embedder import MiniLM

        self.model = MiniLM()

    def embed(self, texts: Any) -> Any:
        return self.model.embed(texts)


def built(path: Path, turns: int) -> HistoryIndex:
    index = HistoryIndex.open(path)
    have = index.count()
    source = itertools.islice(corpus.turns(), have, turns)
    while True:
        batch = list(itertools.islice(source, 2000))
        if not batch:
            break
        index.record_many(batch)
    return index


def add_vectors(index: HistoryIndex) -> float:
    """A random unit vector for every turn without one; the seconds it took."""
    meaning = index.meaning(RandomVectors())
    started = time.monotonic()
    with writing(meaning.engine).begin() as conn:
        random_vectors(conn, RandomVectors.model_id)
    return time.monotonic() - started


def random_vectors(conn: Connection, model: str) -> None:
    """A random unit vector (int8) under `model` for every turn without one."""
    rng = np.random.default_rng(5)
    missing = "SELECT id FROM turns WHERE id NOT IN (SELECT turn_id FROM turn_vectors)"
    ids = list(conn.exec_driver_sql(missing).scalars())
    for at in range(0, len(ids), 10000):
        chunk = ids[at : at + 10000]
        rows = rng.standard_normal((len(chunk), DIMENSIONS)).astype(np.float32)
        vectors = quantized(rows / np.linalg.norm(rows, axis=1, keepdims=True))
        conn.exec_driver_sql(
            "INSERT INTO turn_vectors (turn_id, model, vector) VALUES (?, ?, ?)",
            [(i, model, v.tobytes()) for i, v in zip(chunk, vectors, strict=True)],
        )


def timed(
    index: HistoryIndex, queries: list[corpus.Query], everywhere: bool, k: int = 5
) -> list[float]:
    out = []
    for query in queries:
        started = time.perf_counter()
        index.search(query.text, project=None if everywhere else query.project, k=k)
        out.append(1000 * (time.perf_counter() - started))
    return out


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _compared(
    index: HistoryIndex, queries: list[corpus.Query], everywhere: bool, depth: int, say: Any
) -> None:
    """Lexical alone (k=5), the lexical side as a blended search asks it (`depth`), and hybrid
    with the lexical side at `depth`, one after the other on the same queries."""
    import history.index
    from history.meaning import blend

    history.index.MEANING_CANDIDATES = depth
    # The synthetic vectors' cosines stay near 0: with the floor a real search's nearest turns
    # pass (0.52 and more for 95% of the development sets' queries), none of these would, and
    # the dense side's turns would not be read. Every one is read and blended, as in a real search.
    blend.NEAR_ENOUGH = -1.0
    scope = "everywhere" if everywhere else "project"
    index.meaning_search = False
    timed(index, queries[:20], everywhere)  # warm
    lexical = timed(index, queries, everywhere)
    deeper = timed(index, queries, everywhere, depth)
    index.meaning_search = True
    timed(index, queries[:20], everywhere)
    hybrid = timed(index, queries, everywhere)
    for name, values in (("lexical", lexical), (f"lexical_{depth}", deeper), ("hybrid", hybrid)):
        say(
            metric="search_ms",
            scope=scope,
            lexical_depth=depth,
            variant=name,
            p50=round(percentile(values, 0.5), 2),
            p95=round(percentile(values, 0.95), 2),
        )
    added = [h - w for h, w in zip(hybrid, lexical, strict=True)]
    say(
        metric="hybrid_added_ms",
        scope=scope,
        lexical_depth=depth,
        p95_of_difference=round(percentile(hybrid, 0.95) - percentile(lexical, 0.95), 2),
        median_added=round(percentile(added, 0.5), 2),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--db", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--prepare", action="store_true", help="build the index and vectors only")
    ap.add_argument("--exact", action="store_true", help="no approximate index, at any size")
    ap.add_argument(
        "--query-model",
        action="store_true",
        help="each query embedded by the packaged model (the meaning extra), its cost included",
    )
    ap.add_argument(
        "--depths",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[MEANING_CANDIDATES],
        help="the lexical side's depths to compare (default: the shipped one)",
    )
    args = ap.parse_args(argv)
    path = args.db or OUT / f"meaning-cost-{args.turns}.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    index = built(path, args.turns)
    before = os.path.getsize(path)
    seconds = add_vectors(index)
    index.tidy()
    after = os.path.getsize(path)
    if args.prepare:
        return 0
    meaning = index.meaning(ModelQueries() if args.query_model else RandomVectors())
    rows: list[dict[str, Any]] = []

    def say(**row: Any) -> None:
        row = {"turns": args.turns, "exact": args.exact, "query_model": args.query_model, **row}
        rows.append(row)
        print(json.dumps(row), flush=True)

    say(metric="vectors_written_s", value=round(seconds, 2))
    say(metric="file_growth_bytes", value=after - before)
    with meaning.engine.connect() as conn:
        started = time.perf_counter()
        meaning.matrix.refresh(conn, meaning.model_id)
        say(metric="matrix_load_ms", value=round(1000 * (time.perf_counter() - started), 1))
    say(metric="matrix_bytes", value=int(meaning.matrix.rows.nbytes + meaning.matrix.ids.nbytes))
    if args.exact:
        meaning.matrix = VectorMatrix(approximate_from=2**62)
        with meaning.engine.connect() as conn:
            meaning.matrix.refresh(conn, meaning.model_id)
    elif len(meaning.matrix.ids) >= APPROXIMATE_FROM_ROWS:
        started = time.perf_counter()
        while not meaning.matrix.approximate:  # built in the background after the load
            time.sleep(0.2)
        say(metric="approximate_build_s", value=round(time.perf_counter() - started, 1))
    say(metric="approximate", value=meaning.matrix.approximate)
    queries = corpus.queries(args.queries)
    for everywhere in (False, True):
        for depth in args.depths:
            _compared(index, queries, everywhere, depth, say)
    near = [0.0] * 0
    q = RandomVectors().embed(["x"])[0]
    for _ in range(50):
        started = time.perf_counter()
        meaning.matrix.nearest(q, 50)
        near.append(1000 * (time.perf_counter() - started))
    say(
        metric="nearest_ms",
        p50=round(percentile(near, 0.5), 2),
        p95=round(percentile(near, 0.95), 2),
    )
    say(metric="max_rss_mb", value=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    appended(args.out, rows)
    return 0


def appended(out: Path | None, rows: list[dict[str, Any]]) -> None:
    """`rows` added to `out` as JSON lines (nothing without it)."""
    if out:
        with out.open("a", encoding="utf-8") as sink:
            for row in rows:
                sink.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    sys.exit(main())

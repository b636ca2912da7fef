"""How much of the exact nearest turns an approximate vector index finds, on a development set's
real vectors (embedded by `bench.quality_meaning --prepare`) and its queries: the index
history/meaning/approximate.py builds, faiss's HNSW graph of float vectors at other settings,
and its inverted lists (the other candidate).

    python -m bench.meaning_recall [--set datasette] [--queries 300]

Each index returns 200 candidates (history/meaning/matrix.py asks 4 per turn wanted), scored
exactly as the matrix scores them; recall@10 and @50 against exact search. One JSON line each.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
import time
from typing import Any

import numpy as np

from bench.quality_sets import OUT, set_dirs

CANDIDATES = 200


def recall(index: Any, vectors: Any, queries: Any) -> dict[str, float]:
    tens, fifties, spent = [], [], []
    for query in queries:
        exact = np.argsort(-(vectors @ query))
        started = time.perf_counter()
        _scores, found = index.search(query.reshape(1, -1), CANDIDATES)
        spent.append(time.perf_counter() - started)
        found = found[0][found[0] >= 0]
        ranked = found[np.argsort(-(vectors[found] @ query))]
        tens.append(len(set(ranked[:10]) & set(exact[:10])) / 10)
        fifties.append(len(set(ranked[:50]) & set(exact[:50])) / 50)
    return {
        "recall@10": round(float(np.mean(tens)), 3),
        "recall@50": round(float(np.mean(fifties)), 3),
        "ms_p50": round(1000 * float(np.median(spent)), 3),
    }


def main(argv: list[str] | None = None) -> int:
    import faiss

    from history.meaning.approximate import Approximate
    from history.meaning.embedder import default_embedder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", default="datasette")
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args(argv)
    faiss.omp_set_num_threads(1)
    with sqlite3.connect(OUT / f"meaning-{args.set}.db") as conn:
        stored = [bytes(row[0]) for row in conn.execute("SELECT vector FROM turn_vectors")]
    vectors = np.frombuffer(b"".join(stored), np.int8).reshape(len(stored), -1)
    vectors = vectors.astype(np.float32)
    n, dims = vectors.shape
    asked = [
        json.loads(line)["query"]
        for line in (set_dirs()[args.set] / "queries.jsonl").read_text().splitlines()
    ][: args.queries]
    queries = np.asarray(default_embedder().embed(asked), np.float32)
    base = {"set": args.set, "vectors": n, "queries": len(asked)}
    shipped = Approximate.build(np.arange(n), vectors, "any")
    assert shipped is not None
    found = recall(shipped._index, vectors, queries)
    print(json.dumps({**base, "index": "shipped (approximate.py)", **found}))
    for links in (16, 32):
        graph = faiss.IndexHNSWFlat(dims, links, faiss.METRIC_INNER_PRODUCT)
        graph.hnsw.efConstruction = 40
        graph.add(vectors)
        for breadth in (64, 128, 256):
            graph.hnsw.efSearch = breadth
            found = recall(graph, vectors, queries)
            print(json.dumps({**base, "index": "hnsw", "links": links, "ef": breadth, **found}))
    for lists in (int(math.sqrt(n)), int(2 * math.sqrt(n))):
        inverted = faiss.IndexIVFFlat(
            faiss.IndexFlatIP(dims), dims, lists, faiss.METRIC_INNER_PRODUCT
        )
        inverted.train(vectors)
        inverted.add(vectors)
        for share in (0.02, 0.04, 0.08, 0.15):
            inverted.nprobe = max(1, math.ceil(share * lists))
            found = recall(inverted, vectors, queries)
            line = {**base, "index": "ivf", "lists": lists, "probed": inverted.nprobe, **found}
            print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())

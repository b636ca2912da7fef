"""How a search's cost grows with its commonest word: the bench's queries on a kept database,
binned by the share of turns that hold the query's commonest word.

    python -m bench.cost_by_frequency bench/out/db-100000-seed7-common/recall.db --mix common

Prints one JSON line per bin and scope: how many queries, wall and CPU p50 / p95 (CPU time of
this process, which holds SQLite: on a shared machine it moves less than wall time), and the
share of those searches that were cut short (`approximate`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.measure import percentile
from bench.mixes import MIXES, queries
from history import HistoryIndex
from history.store.sqlite.fts import indexed_rows
from tests.helpers.engines import engine_of

BINS = (0.01, 0.05, 0.2, 1.0)  # upper bounds of the commonest word's share of the turns


def _shares(index: HistoryIndex, words: tuple[str, ...]) -> float:
    count = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?"
    with engine_of(index).connect() as conn:
        rows = indexed_rows(conn)
        found = [int(conn.exec_driver_sql(count, (f'"{word}"',)).scalar_one()) for word in words]
    return max(found) / max(rows, 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cost_by_frequency", description=__doc__)
    parser.add_argument("db", type=Path)
    parser.add_argument("--mix", choices=tuple(MIXES), default="common")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    index = HistoryIndex.open(args.db)
    try:
        asked = queries(args.mix, args.queries, args.seed)
        commonest = [_shares(index, query.terms) for query in asked]
        for query in asked[:5]:
            index.search(query.text)
        for scope in ("every", "project"):
            samples: dict[float, list[tuple[float, float, bool]]] = {bound: [] for bound in BINS}
            for query, share in zip(asked, commonest, strict=True):
                project = query.project if scope == "project" else None
                wall, cpu = time.perf_counter(), time.process_time()
                hits = index.search(query.text, project=project)
                cost = ((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)
                bound = next(bound for bound in BINS if share <= bound)
                samples[bound].append((*cost, hits.approximate))
            for bound, sample in samples.items():
                if not sample:
                    continue
                walls, cpus = [s[0] for s in sample], [s[1] for s in sample]
                line = {
                    "db": str(args.db),
                    "scope": scope,
                    "commonest_word_share_up_to": bound,
                    "queries": len(sample),
                    "wall_p50_ms": round(percentile(walls, 50), 2),
                    "wall_p95_ms": round(percentile(walls, 95), 2),
                    "cpu_p50_ms": round(percentile(cpus, 50), 2),
                    "cpu_p95_ms": round(percentile(cpus, 95), 2),
                    "approximate": round(sum(s[2] for s in sample) / len(sample), 3),
                }
                print(json.dumps(line), flush=True)
    finally:
        index.close()


if __name__ == "__main__":
    main()

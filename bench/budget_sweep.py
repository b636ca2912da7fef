"""What the search's work budget buys: the same queries on a kept database with several budgets,
each against the exhaustive shipped ranking (computed once per query and scope).

    python -m bench.budget_sweep bench/out/db-1000000-seed7-common/recall.db --mix common \
        --budgets 20000 80000 320000 --queries 100

Prints one JSON line per budget and scope: wall and CPU p50 / p95 (ms), the share of searches
cut short, and the top-5 overlap with `bench.phases.recall_exhaustive`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.measure import percentile
from bench.mixes import MIXES, queries
from bench.phases import recall_exhaustive
from history import HistoryIndex
from history.store.sqlite import fts_search


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.budget_sweep", description=__doc__)
    parser.add_argument("db", type=Path)
    parser.add_argument("--mix", choices=tuple(MIXES), default="common")
    parser.add_argument("--budgets", type=int, nargs="+", default=[fts_search.WORK_BUDGET])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    index = HistoryIndex.open(args.db)
    try:
        asked = queries(args.mix, args.queries, args.seed)
        for scope in ("every", "project"):
            projects = [query.project if scope == "project" else None for query in asked]
            reference = [
                set(recall_exhaustive(index, query.terms, project, 5))
                for query, project in zip(asked, projects, strict=True)
            ]
            for budget in args.budgets:
                fts_search.WORK_BUDGET = budget
                walls, cpus, cut, overlap = [], [], 0, []
                for query, project, best in zip(asked, projects, reference, strict=True):
                    wall, cpu = time.perf_counter(), time.process_time()
                    hits = index.search(query.text, project=project)
                    walls.append((time.perf_counter() - wall) * 1000)
                    cpus.append((time.process_time() - cpu) * 1000)
                    cut += hits.approximate
                    got = {hit.turn_id for hit in hits}
                    overlap.append(len(got & best) / len(best) if best else float(not got))
                line = {
                    "db": str(args.db),
                    "scope": scope,
                    "budget": budget,
                    "wall_p50_ms": round(percentile(walls, 50), 2),
                    "wall_p95_ms": round(percentile(walls, 95), 2),
                    "cpu_p50_ms": round(percentile(cpus, 50), 2),
                    "cpu_p95_ms": round(percentile(cpus, 95), 2),
                    "approximate": round(cut / len(asked), 3),
                    "top5_overlap": round(sum(overlap) / len(overlap), 3),
                }
                print(json.dumps(line), flush=True)
    finally:
        index.close()


if __name__ == "__main__":
    main()

"""Where the time of the slowest PostgreSQL searches goes: each search timed with every
statement it sent (round trips), then the slowest ones' statements under EXPLAIN (ANALYZE,
BUFFERS): planning, execution, the GIN scans (Bitmap Index Scan nodes) and the heap.

    python -m bench.pg_slowest --url postgresql+psycopg://root@127.0.0.1/recall_pg_1m \
        --queries 200 --scope project --slowest 20

One JSON line per slow search (its wall time, statements, each statement's wall time, planning,
execution, GIN and heap time, heap blocks), then a summary line over those searches.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from sqlalchemy import event

from bench.corpus import queries
from history import HistoryIndex
from tests.helpers.engines import engine_of


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in node.get("Plans", []):
        found += _nodes(child)
    return found


def _explain(cursor: Any, sql: str, params: Any) -> dict[str, Any]:
    cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
    plan = cursor.fetchone()[0][0]
    nodes = _nodes(plan["Plan"])
    gin = sum(n["Actual Total Time"] for n in nodes if n["Node Type"] == "Bitmap Index Scan")
    heap_nodes = [n for n in nodes if n["Node Type"] == "Bitmap Heap Scan"]
    heap_blocks = sum(
        n.get("Exact Heap Blocks", 0) + n.get("Lossy Heap Blocks", 0) for n in heap_nodes
    )
    rows = sum(n["Actual Rows"] + n.get("Rows Removed by Filter", 0) for n in heap_nodes)
    gin_blocks = sum(
        n.get("Shared Hit Blocks", 0) + n.get("Shared Read Blocks", 0)
        for n in nodes
        if n["Node Type"] == "Bitmap Index Scan"
    )
    return {
        "plan_ms": round(plan["Planning Time"], 2),
        "exec_ms": round(plan["Execution Time"], 2),
        "gin_ms": round(gin, 2),
        "gin_blocks": gin_blocks,
        "heap_blocks": heap_blocks,
        "rows": rows,
        "indexes": sorted({n.get("Index Name", "") for n in nodes if "Index Name" in n}),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_slowest", description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scope", choices=("every", "project"), default="project")
    parser.add_argument("--slowest", type=int, default=20)
    parser.add_argument("--plans", action="store_true", help="print the slow statements' plans")
    args = parser.parse_args(argv)
    index = HistoryIndex.open(args.url)
    sent: list[list[Any]] = []

    def before(conn: Any, cursor: Any, sql: str, params: Any, *rest: Any) -> None:
        sent.append([sql, params, time.perf_counter(), 0.0])

    def after(conn: Any, cursor: Any, sql: str, params: Any, *rest: Any) -> None:
        sent[-1][3] = (time.perf_counter() - sent[-1][2]) * 1000

    event.listen(engine_of(index), "before_cursor_execute", before)
    event.listen(engine_of(index), "after_cursor_execute", after)
    sample = queries(args.queries, args.seed)
    for query in sample[:5]:
        index.search(query.text, project=None, k=5)
    searches = []
    for query in sample:
        sent.clear()
        project = query.project if args.scope == "project" else None
        started = time.perf_counter()
        index.search(query.text, project, k=5)
        wall = (time.perf_counter() - started) * 1000
        searches.append((wall, query.text, project, [list(s) for s in sent]))
    searches.sort(key=lambda s: -s[0])
    totals: dict[str, float] = {}
    with engine_of(index).connect() as conn:
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        for wall, words, project, statements in searches[: args.slowest]:
            parts = []
            for sql, params, _, ms in statements:
                line: dict[str, Any] = {"ms": round(ms, 2), "sql": sql[:60]}
                if "ts_rank" in sql:
                    line |= _explain(cursor, sql, params)
                    if args.plans:
                        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
                        line["plan"] = [r[0] for r in cursor.fetchall()]
                parts.append(line)
            summary = {
                "wall_ms": round(wall, 2),
                "q": words,
                "project": project,
                "statements": len(statements),
                "statement_ms": round(sum(p["ms"] for p in parts), 2),
                "ranking_statements": sum("exec_ms" in p for p in parts),
            }
            for key in ("plan_ms", "exec_ms", "gin_ms", "heap_blocks", "rows", "gin_blocks"):
                summary[key] = round(sum(p.get(key, 0) for p in parts), 2)
            for key, value in summary.items():
                if isinstance(value, (int, float)):
                    totals[key] = totals.get(key, 0) + value
            print(json.dumps(summary | {"parts": parts}))
    n = min(args.slowest, len(searches))
    print(json.dumps({"slowest": n, **{k: round(v / n, 2) for k, v in totals.items()}}))
    index.close()


if __name__ == "__main__":
    main()

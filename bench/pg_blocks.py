"""Heap blocks each PostgreSQL search reads, from EXPLAIN (ANALYZE, BUFFERS) of its statements:
what a search costs on a server whose shared buffers hold little of the table, without the
noise of the machine's load or of what the cache happens to hold.

    python -m bench.pg_blocks --url postgresql+psycopg://root@127.0.0.1/recall_pg_1m \
        --queries 100 --scope every|project

One JSON line per search (its heap blocks, the rows its statements visited, `approximate`),
then the p50 / p95 / mean of the blocks. Each statement runs twice (the search, then EXPLAIN).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from sqlalchemy import event

from bench.corpus import queries
from history import HistoryIndex
from tests.helpers.engines import engine_of


def _heap(node: dict[str, Any]) -> tuple[int, int]:
    blocks = rows = 0
    if node["Node Type"] == "Bitmap Heap Scan":
        blocks += node.get("Exact Heap Blocks", 0) + node.get("Lossy Heap Blocks", 0)
        rows += node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
    for child in node.get("Plans", []):
        more_blocks, more_rows = _heap(child)
        blocks, rows = blocks + more_blocks, rows + more_rows
    return blocks, rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_blocks", description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scope", choices=("every", "project"), default="every")
    args = parser.parse_args(argv)
    index = HistoryIndex.open(args.url)
    statements: list[tuple[str, Any]] = []
    event.listen(
        engine_of(index),
        "before_cursor_execute",
        lambda conn, cursor, sql, params, *rest: statements.append((sql, params)),
    )
    all_blocks = []
    for query in queries(args.queries, args.seed):
        statements.clear()
        project = query.project if args.scope == "project" else None
        result = index.search(query.text, project, k=5)
        blocks = rows = 0
        with engine_of(index).connect() as conn:
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            for sql, params in [s for s in statements if "ts_rank" in s[0]]:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
                more_blocks, more_rows = _heap(cursor.fetchone()[0][0]["Plan"])
                blocks, rows = blocks + more_blocks, rows + more_rows
        all_blocks.append(blocks)
        line = {"q": query.text, "blocks": blocks, "rows": rows, "approx": result.approximate}
        print(json.dumps(line))
    all_blocks.sort()
    summary = {
        "scope": args.scope,
        "blocks_p50": all_blocks[len(all_blocks) // 2],
        "blocks_p95": all_blocks[int(len(all_blocks) * 0.95)],
        "blocks_mean": round(sum(all_blocks) / len(all_blocks), 1),
    }
    print(json.dumps(summary))
    index.close()


if __name__ == "__main__":
    main()

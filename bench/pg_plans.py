"""Where a PostgreSQL search's time goes: planning or execution, statement by statement.

    python -m bench.pg_plans --url postgresql+psycopg://root@127.0.0.1/DB --size N
        [--queries 40] [--scope every|project] [--plan-cache auto|force_custom_plan|...]

`--planned each` plans every statement for its values as the search did before its plans were
cached (search.EVERY_PROJECT_PLANS), to compare in the same run. Runs each query of the sample
as `HistoryIndex.search` does and, for every statement it sent
that reads `turns`, the same statement again under `EXPLAIN (ANALYZE, BUFFERS, SUMMARY)`: the
planning time against the execution time, the shared buffers hit and read. Prints one JSON line
per figure: per search, the sums over its statements (p50/p95), and the statements' count; and,
as the client sees them, the time of every statement a search sent (`sent`: to `turns` and any
other, round trips included) and the rest of its wall clock (`outside`: Python, the pool's
checkout and ping, the COMMIT).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from typing import Any

from psycopg import sql
from sqlalchemy import event

from bench.corpus import queries
from bench.measure import RECALL, Emitter, percentile
from history import HistoryIndex
from history.store.postgres import search
from tests.helpers.engines import engine_of, searches_engine_of


def _as_prepared(statement: str, parameters: dict[str, Any]) -> tuple[str, list[Any]]:
    """The statement with `$n` for its `%(name)s` parameters, and their values in order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return re.sub(r"%\((\w+)\)s", number, statement), [parameters[n] for n in names]


def _cached(raw: Any, statement: str, parameters: Any, mode: str) -> dict[str, Any]:
    """The statement prepared (SQL PREPARE) and run twice under `plan_cache_mode = mode`: the
    second run's planning and execution, as a connection that ran it before would see them."""
    body, values = _as_prepared(statement, parameters or {})
    raw.execute(f"SET plan_cache_mode = {mode}")
    raw.execute(sql.SQL("PREPARE recall_plan AS {}").format(sql.SQL(body)))
    try:
        call: sql.Composable = sql.SQL(
            "EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) EXECUTE recall_plan"
        )
        if values:
            listed = sql.SQL(", ").join(sql.Literal(v) for v in values)
            call = sql.SQL("{} ({})").format(call, listed)
        for _ in range(2):
            (plan,) = raw.execute(call).fetchone()[0]
    finally:
        raw.execute("DEALLOCATE recall_plan")
        raw.execute("RESET plan_cache_mode")
    return {"planning": float(plan["Planning Time"]), "execution": float(plan["Execution Time"])}


def _explained(raw: Any, statement: str, parameters: Any) -> dict[str, Any]:
    with raw.cursor() as cursor:
        cursor.execute(
            "EXPLAIN (ANALYZE, BUFFERS, SUMMARY, FORMAT JSON) " + statement, parameters or None
        )
        (plan,) = cursor.fetchone()[0]
    top = plan["Plan"]
    return {
        "planning": float(plan["Planning Time"]),
        "execution": float(plan["Execution Time"]),
        "hit": int(top.get("Shared Hit Blocks", 0)),
        "read": int(top.get("Shared Read Blocks", 0)),
    }


def _warming(sample: list[Any], passes: int, warm_seed: int | None) -> list[Any]:
    """What is searched before the timed pass: the word counts and the caches warm."""
    if warm_seed is not None:
        return list(queries(2 * len(sample), seed=warm_seed))
    return sample[:5] + sample * (passes - 1)


def run(
    url: str,
    size: int,
    count: int,
    scope: str,
    plan_cache: str | None,
    explain: bool = True,
    planned: str = "cached",
    passes: int = 1,
    prepared: str = "",
    warm_seed: int | None = None,
) -> None:
    """`planned`: "cached" as the code has it, or "each" (every statement planned for its
    values: the search before its plans were cached). `passes`: the sample is searched that many
    times, the last one timed (a long-running service has run the same kinds of search before).
    `warm_seed`: first search twice as many other queries (that seed's sample), then time the
    sample once: a service that has searched before, but not these words."""
    if planned == "each":
        search.EVERY_PROJECT_PLANS = "force_custom_plan"
        search.ONE_PROJECT_PLANS = "force_custom_plan"
    out = Emitter(size)
    index = HistoryIndex.open(url)
    engine = engine_of(index)
    sent: list[tuple[str, Any]] = []
    clock = {"started": 0.0, "spent": 0.0}

    def _keep(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        if " FROM turns" in statement and statement.lstrip().upper().startswith("SELECT"):
            sent.append((statement, parameters))
        clock["started"] = time.perf_counter()

    def _spent(*_: Any) -> None:
        clock["spent"] += time.perf_counter() - clock["started"]

    # The searches run in a pool of their own (repository.py), the reads before them in the
    # index's.
    for watched in {engine, searches_engine_of(index)}:
        event.listen(watched, "before_cursor_execute", _keep)
        event.listen(watched, "after_cursor_execute", _spent)

    sample = queries(count, seed=7)
    for query in _warming(sample, passes, warm_seed):
        index.search(query.text, project=query.project if scope == "project" else None)
    totals: dict[str, list[float]] = {
        "planning": [],
        "execution": [],
        "search": [],
        "sent": [],
        "outside": [],
        "n": [],
    }
    raw = engine.raw_connection()
    try:
        driver = raw.driver_connection
        assert driver is not None
        if plan_cache:
            driver.execute(f"SET plan_cache_mode = {plan_cache}")
        for query in sample:
            project = query.project if scope == "project" else None
            sent.clear()
            clock["spent"] = 0.0
            started = time.perf_counter()
            index.search(query.text, project=project)
            wall = (time.perf_counter() - started) * 1000
            totals["search"].append(wall)
            totals["sent"].append(clock["spent"] * 1000)
            totals["outside"].append(wall - clock["spent"] * 1000)
            statements = list(sent) if explain else []
            if prepared:
                explained = [_cached(driver, s, p, prepared) for s, p in statements]
            else:
                explained = [_explained(driver, s, p) for s, p in statements]
            driver.rollback()
            totals["planning"].append(sum(e["planning"] for e in explained))
            totals["execution"].append(sum(e["execution"] for e in explained))
            totals["n"].append(float(len(explained)))
    finally:
        raw.close()
    for name, values in totals.items():
        for p in (50, 95):
            unit = "statements" if name == "n" else "ms"
            out.emit(f"{scope}_{name}_p{p}", RECALL, percentile(values, p), unit, prepared=prepared)
    print(json.dumps({"scope": scope, "plan_cache": plan_cache, "queries": len(sample)}))
    index.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_plans", description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--scope", choices=("every", "project"), default="every")
    parser.add_argument("--plan-cache", default=None)
    parser.add_argument("--no-explain", action="store_true", help="time the searches only")
    parser.add_argument("--planned", choices=("cached", "each"), default="cached")
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--warm-seed", type=int, default=None, help="warm with other queries")
    parser.add_argument(
        "--prepared",
        default="",
        help="explain each statement prepared and run twice under this plan_cache_mode",
    )
    args = parser.parse_args(argv)
    explain = not args.no_explain
    run(
        args.url,
        args.size,
        args.queries,
        args.scope,
        args.plan_cache,
        explain,
        args.planned,
        args.passes,
        args.prepared,
        args.warm_seed,
    )


if __name__ == "__main__":
    main()

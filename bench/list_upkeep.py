"""How long the upkeep holds the write lock after a forget, while the common words' lists and
counts are built again, on a copy of a recall file.

    flock /tmp/recall-bench.lock .venv/bin/python -m bench.list_upkeep --source PATH

`PATH` is a recall database whose lists were built (a `bench.run --keep` import); it is copied,
never changed. On the copy, a session of `--forget` turns is forgotten (which empties the word
counts), then the upkeep's steps run as its thread takes them (the maintenance port's step of
THREAD_STEP_PAGES) until none is left, while a second process records a turn every
`--interval` seconds (bench.large_forget's recorder). Measured: each write transaction's hold
(BEGIN IMMEDIATE's return to the commit's end) and the records' latencies. Baseline: a write
transaction of this process that adds one turn, on the same copy before the forget (what a
record holds the lock for).

Prints JSON lines `{"metric", "impl", "value", "unit"}`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import event

from bench.large_forget import Recorder, copy_to_disk, emit, percentile, report_records

RECALL, BASELINE = "recall", "baseline"


def _holds(engine: Any) -> list[float]:
    """The seconds each write transaction of `engine` held the lock, appended as they end."""
    held: list[float] = []
    began: dict[int, float] = {}

    @event.listens_for(engine, "begin")
    def _began(conn: Any) -> None:
        if conn.get_execution_options().get("sqlite_begin") == "IMMEDIATE":
            began[id(conn)] = time.perf_counter()

    @event.listens_for(engine, "commit")
    def _ended(conn: Any) -> None:
        started = began.pop(id(conn), None)
        if started is not None:
            held.append(time.perf_counter() - started)

    return held


def _session_of(engine: Any, turns: int) -> str:
    from sqlalchemy import text

    with engine.connect() as conn:
        found = conn.execute(
            text(
                "SELECT session_id FROM turns GROUP BY session_id HAVING count(*) >= :n "
                "ORDER BY count(*) LIMIT 1"
            ),
            {"n": turns},
        ).scalar_one()
    return str(found)


def _emit_holds(prefix: str, impl: str, held: list[float]) -> None:
    ms = [s * 1000 for s in held]
    emit(f"{prefix}transactions", impl, len(ms), "count")
    for name, share in (("p50", 0.5), ("p99", 0.99)):
        emit(f"{prefix}hold_{name}", impl, percentile(ms, share), "ms")
    emit(f"{prefix}hold_max", impl, max(ms, default=0.0), "ms")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.list_upkeep")
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--forget", type=int, default=10, help="turns of the forgotten session")
    parser.add_argument("--interval", type=float, default=0.1)
    args = parser.parse_args(argv)
    from history import HistoryIndex
    from history.upkeep import THREAD_STEP_PAGES
    from tests.helpers.engines import engine_of

    with tempfile.TemporaryDirectory(dir=args.source.parent) as folder:
        copy = Path(folder) / "recall.db"
        copy_to_disk(args.source, copy)
        index = HistoryIndex.open(copy)
        held = _holds(engine_of(index))
        for n in range(50):
            turn = f"list-upkeep-{n}"
            index.record(
                turn_id=turn, session_id="list-upkeep", project="/b", asked=turn, answered=""
            )
        _emit_holds("record_", BASELINE, held[-50:])
        index.tidy()
        session = _session_of(engine_of(index), args.forget)
        held.clear()
        recorder = Recorder(copy, args.interval)
        started = time.perf_counter()
        forgotten = index.forget_session(session)
        emit("forgotten", RECALL, forgotten, "turns")
        forget_holds = list(held)
        held.clear()
        steps = 0
        while index._maintenance.step(THREAD_STEP_PAGES, nullcontext()) != "done":
            steps += 1
        emit("upkeep_seconds", RECALL, time.perf_counter() - started, "s")
        emit("upkeep_steps", RECALL, steps, "count")
        _emit_holds("forget_", RECALL, forget_holds)
        _emit_holds("upkeep_", RECALL, held)
        report_records(RECALL, "during_", recorder.finish())
        index.close()


if __name__ == "__main__":
    main()

"""Where a large forget's time goes, part by part, on a copy of a recall database (no recorder).

    flock /tmp/recall-bench.lock .venv/bin/python -m bench.forget_parts --source PATH --work DIR

`recall`: `forget_project` and its scrub as shipped, with the time of each kind of step summed
(delete batches, index rewrite steps, zeroing steps, passive checkpoints, the final checkpoint,
pauses). `raw`: on another copy, raw SQL through the same driver and functions: the project's
DELETE in one statement (FTS5 secure-delete off, every trigger as the file has it), then FTS5
'optimize' in one statement, then wal_checkpoint(TRUNCATE): the floor of a forget that rewrites
the index. `--raw-variant no-lists` drops the lists' delete trigger first (their rows for the
project deleted in one statement, timed apart). Prints JSON lines `{"metric", "impl", "value"}`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.large_forget import copy_to_disk, pick_project

Timings = dict[str, list[float]]
# Triggers each raw variant drops before its DELETE (only to see what each costs).
DROPPED = {
    "all": [],
    "no-lists": ["best_turns_ad"],
    "no-fts": ["turns_ad"],
    "no-summaries": ["turns_summary_ad"],
    "none": ["best_turns_ad", "turns_ad", "turns_summary_ad"],
    "fts-no-text-function": [],
    "compiled-text-function": [],
}


def emit(metric: str, impl: str, value: float, unit: str = "ms") -> None:
    print(json.dumps({"metric": metric, "impl": impl, "value": round(value, 3), "unit": unit}))


def timed(owner: Any, name: str, kind: str, timings: Timings) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = time.monotonic()
        try:
            return original(*args, **kwargs)
        finally:
            timings[kind].append(time.monotonic() - began)

    setattr(owner, name, wrapper)


def recall_parts(db: Path, project: str) -> None:
    from history import HistoryIndex
    from history.store.sqlite.forgetting import checkpoints, writers, zeroing
    from history.store.sqlite.repository import SqliteTurnRepository

    index = HistoryIndex.open(db)
    index.tidy()
    repository = index._repository
    assert isinstance(repository, SqliteTurnRepository)
    timings: Timings = defaultdict(list)
    scrub = repository.forgetting.steps
    timed(scrub, "delete_step", "delete_batches", timings)
    timed(scrub, "_rewrite_step", "rewrite_steps_in_transaction", timings)
    timed(scrub, "step", "scrub_steps_with_commit", timings)
    timed(zeroing, "zero_step", "zeroing_in_transaction", timings)
    # The final checkpoint's own passive rounds count among the passive ones.
    timed(checkpoints, "caught_up", "passive_checkpoints", timings)
    timed(checkpoints, "truncate", "final_checkpoint", timings)
    timed(scrub, "move_spooled", "move_spooled", timings)
    timed(writers.WaitingWriters, "let_in", "let_in", timings)
    timed(time, "sleep", "sleeps", timings)  # the module forgetting/forget.py sleeps through
    started = time.monotonic()
    removed = repository.delete_project(project)
    rows_gone = time.monotonic()
    state = repository.forgetting.scrub(None)
    done = time.monotonic()
    emit("forgotten", "recall", removed, "turns")
    emit("forget_rows", "recall", (rows_gone - started) * 1000)
    emit("forget_scrub", "recall", (done - rows_gone) * 1000)
    emit("forget_total", "recall", (done - started) * 1000)
    emit("scrub_done", "recall", float(state == "done"), "bool")
    for kind, values in sorted(timings.items()):
        emit(f"{kind}_total", "recall", sum(values) * 1000)
        emit(f"{kind}_count", "recall", len(values), "calls")
        emit(f"{kind}_max", "recall", max(values) * 1000)
    index.close()


def raw_parts(db: Path, project: str, variant: str, delete_only: bool) -> None:
    from history import HistoryIndex
    from history.query import index_text
    from history.store.sqlite.connection import INDEX_TEXT_FUNCTION
    from history.store.sqlite.engine import sqlite_driver
    from history.store.sqlite.fts import optimize_statement, secure_delete_statement

    HistoryIndex.open(db).close()
    conn = sqlite_driver().connect(str(db), isolation_level=None, timeout=5)
    conn.create_function(INDEX_TEXT_FUNCTION, 1, index_text, deterministic=True)
    if variant == "compiled-text-function":  # the compiled library's, as every connection has
        from history.store.sqlite import rank_extension

        if not rank_extension.load(conn):
            raise SystemExit("the compiled library did not load")
    for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "secure_delete = ON"):
        conn.execute(f"PRAGMA {pragma}")
    impl = f"raw-{variant}"
    began = time.monotonic()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(secure_delete_statement(on=False))
    for trigger in DROPPED[variant]:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    if variant == "fts-no-text-function":  # what the text function's calls cost (ASCII text)
        conn.execute("DROP TRIGGER turns_ad")
        conn.execute(
            "CREATE TEMP TRIGGER turns_ad_plain AFTER DELETE ON main.turns BEGIN "
            "INSERT INTO turns_fts(turns_fts, rowid, asked, answered, files, project_tag) "
            "VALUES ('delete', old.id, old.asked, old.answered, old.files, old.project_tag); END"
        )
    if variant == "no-lists":
        lists = time.monotonic()
        conn.execute("DELETE FROM best_turns WHERE project = ?", (project,))
        emit("lists_delete", impl, (time.monotonic() - lists) * 1000)
    cpu = time.process_time()
    removed = conn.execute("DELETE FROM turns WHERE project = ?", (project,)).rowcount
    deleted = time.monotonic()
    emit("delete_statement_cpu", impl, (time.process_time() - cpu) * 1000)
    conn.execute("COMMIT")
    committed = time.monotonic()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpointed = time.monotonic()
    if delete_only:
        emit("delete_statement", impl, (deleted - began) * 1000)
        conn.close()
        return
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("PRAGMA secure_delete = FAST")
    conn.execute(optimize_statement())
    optimized = time.monotonic()
    conn.execute("COMMIT")
    optimize_committed = time.monotonic()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    done = time.monotonic()
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    conn.close()
    emit("forgotten", impl, removed, "turns")
    emit("delete_statement", impl, (deleted - began) * 1000)
    emit("delete_commit", impl, (committed - deleted) * 1000)
    emit("delete_checkpoint", impl, (checkpointed - committed) * 1000)
    emit("optimize_statement", impl, (optimized - checkpointed) * 1000)
    emit("optimize_commit", impl, (optimize_committed - optimized) * 1000)
    emit("optimize_checkpoint", impl, (done - optimize_committed) * 1000)
    emit("total", impl, (done - began) * 1000)
    emit("freelist_after", impl, free, "pages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--turns", type=int, default=50_000)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--impl", nargs="+", default=["recall", "raw"])
    parser.add_argument("--raw-variant", default="all", choices=sorted(DROPPED))
    parser.add_argument("--delete-only", action="store_true", help="raw: no optimize after")
    args = parser.parse_args()
    project, turns = pick_project(args.source, args.turns)
    print(json.dumps({"meta": {"source": str(args.source), "project": project, "turns": turns}}))
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        for impl in args.impl:
            copy = Path(work) / f"{impl}.db"
            copy_to_disk(args.source, copy)
            if impl == "recall":
                recall_parts(copy, project)
            else:
                raw_parts(copy, project, args.raw_variant, args.delete_only)
            for leftover in Path(work).glob(f"{impl}.db*"):
                leftover.unlink()


if __name__ == "__main__":
    main()

"""A large forget while another process records, against a raw DELETE on a copy of the same file.

    flock /tmp/recall-bench.lock .venv/bin/python -m bench.large_forget --source PATH

`PATH` is a recall database (`python -m bench.importer recall 1000000 --db PATH`); it is copied,
never changed. The project forgotten is the smallest holding at least `--turns` turns. For each
implementation, on its own copy, a second process records one turn every `--interval` seconds
into another project (`HistoryIndex.record_outcome`, the default 5 s busy timeout; how many of its
turns were spooled is counted) from a second before
the forget until a second after it:
- `recall`: `forget_project`, timed in its two parts: the turns gone (the conversations hidden
  from search at once, their rows deleted in batches) and the scrub (the full-text index
  rewritten in steps, the WAL copied back and cut to zero);
- `baseline`: raw sqlite3 (sqlean.py's build, the file's own triggers), FTS5's secure-delete off,
  `DELETE FROM turns WHERE project = ?` in one transaction, then `wal_checkpoint(TRUNCATE)`:
  the floor, which leaves the forgotten words in the index's segments.
Then, on recall's copy, with another process holding a read snapshot and a scrub owed (a small
forget it held back, a watching index as `recall serve` has), 100 records at 0.05 s.

Prints JSON lines `{"metric", "impl", "value", "unit"}`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

READER = (
    "import sys\n"
    "from history.store.sqlite.engine import sqlite_driver\n"
    "reader = sqlite_driver().connect(sys.argv[1], isolation_level=None)\n"
    "reader.execute('BEGIN')\n"
    "print(reader.execute('SELECT count(*) FROM turns').fetchone()[0], flush=True)\n"
    "sys.stdin.readline()\n"
    "reader.execute('COMMIT')\n"
)


def emit(metric: str, impl: str, value: float, unit: str) -> None:
    print(json.dumps({"metric": metric, "impl": impl, "value": round(value, 3), "unit": unit}))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def record_loop(db: str, stop: str, interval: float, count: int) -> None:
    """The recording process: one turn every `interval` s until `stop` exists (or `count`)."""
    from history import HistoryIndex
    from history.redaction import redact

    index = HistoryIndex.open(db)
    # The secret rules load on a process's first use (~0.15-0.5 s, bench.startup's part): loaded
    # before the first timed record, which measures waiting for the lock, not start-up.
    redact("warm")
    latencies: list[float] = []
    spooled_latencies: list[float] = []
    failed = spooled = 0
    print("ready", flush=True)
    n = 0
    while not Path(stop).exists() and (count == 0 or n < count):
        started = time.monotonic()
        outcome = index.record_outcome(
            turn_id=f"live-{time.time_ns()}",
            session_id="live-session",
            project="/home/dev/live",
            asked=f"a live turn {n} while something is forgotten",
            answered="recorded",
        )
        latencies.append(time.monotonic() - started)
        failed += outcome is None
        if outcome == "spooled":
            spooled += 1
            spooled_latencies.append(latencies[-1])
        n += 1
        time.sleep(max(0.0, interval - (time.monotonic() - started)))
    index.close()
    report = {"latencies": latencies, "spooled_latencies": spooled_latencies}
    print(json.dumps({**report, "failed": failed, "spooled": spooled}), flush=True)


class Recorder:
    def __init__(self, db: Path, interval: float, count: int = 0) -> None:
        self.stop = db.with_suffix(".stop")
        self.stop.unlink(missing_ok=True)
        command = [sys.executable, "-m", "bench.large_forget", "--record", str(db)]
        command += ["--stop", str(self.stop), "--interval", str(interval), "--count", str(count)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready"

    def finish(self) -> dict[str, Any]:
        self.stop.touch()
        out, _ = self.process.communicate(timeout=600)
        report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return report


def report_records(impl: str, prefix: str, report: dict[str, Any]) -> None:
    latencies = [s * 1000 for s in report["latencies"]]
    emit(f"{prefix}records", impl, len(latencies), "turns")
    emit(f"{prefix}records_failed", impl, report["failed"], "turns")
    emit(f"{prefix}records_spooled", impl, report["spooled"], "turns")
    emit(f"{prefix}record_p50", impl, percentile(latencies, 0.5), "ms")
    emit(f"{prefix}record_p99", impl, percentile(latencies, 0.99), "ms")
    emit(f"{prefix}record_max", impl, max(latencies, default=0.0), "ms")
    # The records that waited 40 ms and were spooled, and the slowest of those written at once.
    spooled = [s * 1000 for s in report.get("spooled_latencies", [])]
    written = sorted(latencies)
    for latency in spooled:
        written.remove(latency)
    emit(f"{prefix}record_max_spooled", impl, max(spooled, default=0.0), "ms")
    emit(f"{prefix}record_max_written", impl, max(written, default=0.0), "ms")


def pick_project(db: Path, turns: int) -> tuple[str, int]:
    import sqlean.dbapi2 as sqlean

    with sqlean.connect(str(db)) as conn:
        found = conn.execute(
            "SELECT project, turns FROM projects WHERE turns >= ? ORDER BY turns LIMIT 1", (turns,)
        ).fetchone()
    if found is None:
        raise SystemExit(f"no project of {turns} turns or more in {db}")
    return str(found[0]), int(found[1])


def recall_forget(db: Path, project: str, interval: float) -> None:
    from history import HistoryIndex

    index = HistoryIndex.open(db)  # migrates the copy before the recorder opens it
    index.tidy()
    recorder = Recorder(db, interval)
    time.sleep(1)
    repository = index._repository
    started = time.monotonic()
    removed = repository.delete_project(project)
    rows_gone = time.monotonic()
    scrubbed = index._maintenance.scrub(None)
    done = time.monotonic()
    time.sleep(1)
    report = recorder.finish()
    emit("forgotten", "recall", removed, "turns")
    emit("forget_rows", "recall", (rows_gone - started) * 1000, "ms")
    emit("forget_scrub", "recall", (done - rows_gone) * 1000, "ms")
    emit("forget_total", "recall", (done - started) * 1000, "ms")
    emit("scrub_done", "recall", float(scrubbed == "done"), "bool")
    report_records("recall", "", report)
    index.close()


def baseline_forget(db: Path, project: str, interval: float) -> None:
    import sqlean.dbapi2 as sqlean

    from history import HistoryIndex
    from history.query import index_text
    from history.store.sqlite.connection import INDEX_TEXT_FUNCTION
    from history.store.sqlite.fts import secure_delete_statement

    HistoryIndex.open(db).close()  # the same schema as recall's copy
    recorder = Recorder(db, interval)
    time.sleep(1)
    conn = sqlean.connect(str(db), isolation_level=None, timeout=5)
    conn.create_function(INDEX_TEXT_FUNCTION, 1, index_text, deterministic=True)
    conn.execute("PRAGMA journal_mode = WAL")
    started = time.monotonic()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(secure_delete_statement(on=False))
    removed = conn.execute("DELETE FROM turns WHERE project = ?", (project,)).rowcount
    conn.execute("COMMIT")
    rows_gone = time.monotonic()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    done = time.monotonic()
    conn.close()
    time.sleep(1)
    report = recorder.finish()
    emit("forgotten", "baseline", removed, "turns")
    emit("forget_rows", "baseline", (rows_gone - started) * 1000, "ms")
    emit("forget_total", "baseline", (done - started) * 1000, "ms")
    report_records("baseline", "", report)


def records_while_scrub_owed(db: Path) -> None:
    """A reader holds a snapshot, a small forget leaves its scrub owed, a watching index (what
    `recall serve` runs) keeps trying it; another process records 100 turns."""
    from history import HistoryIndex

    index = HistoryIndex.open(db)
    session = index.session_ids("/home/dev/proj-19")[0]
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert reader.stdout is not None and reader.stdin is not None
    reader.stdout.readline()
    index.forget_session(session)
    emit("scrub_owed_under_reader", "recall", float(index.purge_pending), "bool")
    index.watch()
    recorder = Recorder(db, 0.05, count=100)
    out, _ = recorder.process.communicate(timeout=600)
    report_records("recall", "owed_scrub_", json.loads(out.strip().splitlines()[-1]))
    reader.stdin.write(b"done\n")
    reader.stdin.close()
    reader.wait()
    released = time.monotonic()
    while index.purge_pending and time.monotonic() - released < 60:
        time.sleep(0.05)
    emit("scrub_after_reader_ends", "recall", (time.monotonic() - released) * 1000, "ms")
    index.close()


def copy_to_disk(source: Path, copy: Path) -> None:
    """Copy and sync: the 2 GB the copy leaves dirty in the page cache would otherwise be written
    back during the forget, and its first checkpoint's sync would pay for all of it."""
    shutil.copyfile(source, copy)
    fd = os.open(copy, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, help="a recall database to copy")
    parser.add_argument("--turns", type=int, default=50_000, help="the least the project holds")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between records")
    parser.add_argument("--work", type=Path, help="where the copies go (default: a temp dir)")
    parser.add_argument("--record", help=argparse.SUPPRESS)
    parser.add_argument("--stop", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.record:
        record_loop(args.record, args.stop, args.interval, args.count)
        return
    if args.source is None:
        parser.error("--source is required")
    project, turns = pick_project(args.source, args.turns)
    print(json.dumps({"meta": {"source": str(args.source), "project": project, "turns": turns}}))
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        for impl, forget in (("recall", recall_forget), ("baseline", baseline_forget)):
            copy = Path(work) / f"{impl}.db"
            copy_to_disk(args.source, copy)
            forget(copy, project, args.interval)
            if impl == "recall":
                records_while_scrub_owed(copy)
            for leftover in Path(work).glob(f"{impl}.db*"):
                leftover.unlink()


if __name__ == "__main__":
    main()

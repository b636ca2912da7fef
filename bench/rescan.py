"""A re-scan under new secret rules while another process records, on a copy of a recall file.

    flock /tmp/recall-bench.lock .venv/bin/python -m bench.rescan --source PATH

`PATH` is a recall database (`python -m bench.importer recall 100000 --db PATH`); it is copied,
never changed. On the copy, one turn in `--every` gets a password in French words appended (a
form an older version's rules missed) and the file forgets which rules its turns follow, as a
file an older version wrote. Then, while a second process records one turn every `--interval`
seconds (bench.large_forget's recorder), the steps of the re-scan run until none is left
(`Maintenance.rescan_step`, what the upkeep and `recall doctor --rescan` run), then the scrub
they owe. Measured: how long this process held its writers' lock in each step (BEGIN IMMEDIATE's
wait and the commit included) and, of that, the database's write lock (from BEGIN's return to
the commit's end); the records' latencies (the recording process takes part in the re-scan
too, in its own upkeep), the totals, and the planted secrets left in the file's bytes
afterwards. Baseline: the same turns read and redacted in one pass with no write at all (the
floor of the re-scan's CPU).

`upkeep`: the same on a second copy, as a serving process's upkeep takes it (the maintenance
port's steps, each re-scan step followed by as long idle, the scrub paid once at the end).

Prints JSON lines `{"metric", "impl", "value", "unit"}`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.large_forget import Recorder, copy_to_disk, emit, percentile, report_records

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from history import HistoryIndex

SECRET = "quokkarescan"


class TimedLock:
    """A writers' lock that keeps how long each hold lasted, and (`watch(engine)`) how long of
    it the database's write lock was held: from BEGIN IMMEDIATE's return to the commit's. It
    also keeps every write transaction of the process, inside this lock or not (a scrub's steps
    take the database's lock without it): `transactions`, with the commit's part and the
    history function that began it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.holds: list[float] = []
        self.database_holds: list[float] = []
        self.transactions: list[tuple[float, float, str]] = []
        self._began = 0.0
        self._begun: float | None = None

    def watch(self, engine: object) -> None:
        from sqlalchemy import event

        def begun(conn: Any) -> None:  # after the backend's own listener ran BEGIN
            if conn.get_execution_options().get("sqlite_begin") == "IMMEDIATE":
                now = time.monotonic()
                self._begun = now
                conn.connection.info[_BEGUN] = (now, _caller())

        def committing(conn: Any) -> None:
            if _BEGUN in conn.connection.info:
                conn.connection.info[_COMMITTING] = time.monotonic()

        def checked_in(dbapi_conn: object, record: Any) -> None:
            begun_at = record.info.pop(_BEGUN, None)
            committing_at = record.info.pop(_COMMITTING, None)
            if begun_at is not None:
                now = time.monotonic()
                commit = now - committing_at if committing_at is not None else 0.0
                self.transactions.append((now - begun_at[0], commit, begun_at[1]))

        event.listen(engine, "begin", begun)
        self._time_truncating_checkpoints()
        event.listen(engine, "commit", committing)
        event.listen(engine.pool, "checkin", checked_in)  # type: ignore[attr-defined]

    def _time_truncating_checkpoints(self) -> None:
        """The scrub's last checkpoint (TRUNCATE) blocks writers while it copies what is left
        of the WAL: counted as a transaction of its own (its passive rounds first, apart)."""
        from history.store.sqlite.forgetting import checkpoints

        truncate, caught_up = checkpoints.truncate, checkpoints.caught_up

        def timed(engine: Any) -> bool:
            rounds = 0
            while rounds < checkpoints.MOST_PASSIVE_ROUNDS:
                rounds += 1
                if caught_up(engine):
                    break
            wal = Path(f"{engine.url.database}-wal")
            size = wal.stat().st_size / 1e6 if wal.exists() else 0.0
            began = time.monotonic()
            done = checkpoints._checkpoint(engine, "TRUNCATE", wait=False)
            self.transactions.append(
                (
                    time.monotonic() - began,
                    0.0,
                    f"checkpoints.truncate ({rounds} passive rounds, WAL {size:.0f} MB, {done})",
                )
            )
            return bool(done)

        if truncate.__module__ == checkpoints.__name__:
            checkpoints.truncate = timed

    def __enter__(self) -> None:
        self._lock.acquire()
        self._began = time.monotonic()
        self._begun = None

    def __exit__(self, *exc: object) -> None:
        ended = time.monotonic()
        self.holds.append(ended - self._began)
        if self._begun is not None:
            self.database_holds.append(ended - self._begun)
        self._lock.release()

    def emit(self, impl: str) -> None:
        """Every write transaction's hold of the database's lock, and the longest ones' makers."""
        holds = [hold * 1000 for hold, _, _ in self.transactions]
        emit("transactions", impl, len(holds), "transactions")
        emit("transaction_hold_p50", impl, percentile(holds, 0.5), "ms")
        emit("transaction_hold_p99", impl, percentile(holds, 0.99), "ms")
        emit("transaction_hold_max", impl, max(holds, default=0.0), "ms")
        emit("transactions_over_50ms", impl, sum(hold > 50 for hold in holds), "transactions")
        by_caller: dict[str, list[float]] = {}
        for hold, _, who in self.transactions:
            by_caller.setdefault(who.split(" (")[0], []).append(hold * 1000)
        for who, found in sorted(by_caller.items()):
            line = {"n": len(found), "p99": percentile(found, 0.99), "max": max(found)}
            print(json.dumps({"by_caller": impl, "caller": who, **line}))
        longest = sorted(self.transactions, reverse=True)[:8]
        print(
            json.dumps(
                {
                    "longest_transactions": impl,
                    "ms": [[round(h * 1000, 1), round(c * 1000, 1), who] for h, c, who in longest],
                }
            )
        )


_BEGUN, _COMMITTING = "bench_begun", "bench_committing"


def _caller() -> str:
    """The history functions that began a write transaction, innermost last."""
    import sys

    names: list[str] = []
    frame = sys._getframe(2)
    while frame is not None and len(names) < 4:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("history.") and not module.endswith(".engine"):
            names.append(f"{module.rsplit('.', 1)[-1]}.{frame.f_code.co_name}")
        frame = frame.f_back  # type: ignore[assignment]
    return " < ".join(names)


def plant(db: Path, every: int) -> int:
    """Append a secret the older rules missed to one turn in `every`; forget the rules' mark."""
    import sqlean.dbapi2 as sqlean

    from history import HistoryIndex
    from history.query import index_text
    from history.store.sqlite import fts
    from history.store.sqlite.connection import INDEX_TEXT_FUNCTION

    index = HistoryIndex.open(db)  # migrates the copy
    index.tidy()
    index.close()
    conn = sqlean.connect(str(db), isolation_level=None, timeout=5)
    conn.create_function(INDEX_TEXT_FUNCTION, 1, index_text, deterministic=True)
    conn.execute("BEGIN IMMEDIATE")
    # Reindexed with FTS5's delete markers (secure-delete on would rewrite a page for each word
    # of each planted turn: at 10% of 1M turns, over half an hour); what they shadow holds no
    # secret.
    conn.execute(fts.secure_delete_statement(on=False))
    planted = conn.execute(
        "UPDATE turns SET asked = asked || ' Mot de passe : ' || ? || id WHERE id % ? = 0",
        (SECRET, every),
    ).rowcount
    conn.execute(fts.secure_delete_statement(on=True))
    conn.execute("DELETE FROM retention_settings WHERE project LIKE '(secret rules%'")
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return int(planted)


def _engine(index: HistoryIndex) -> Engine:
    """The engine of the SQLite file's upkeep, whose write lock is timed."""
    from history.store.sqlite.maintenance import SqliteMaintenance

    maintenance = index._maintenance
    assert isinstance(maintenance, SqliteMaintenance)
    return maintenance.engine


def recall_rescan(db: Path, interval: float) -> None:
    from history import HistoryIndex

    index = HistoryIndex.open(db)
    index._upkeep.close()  # the steps run here, timed, not in the upkeep's thread
    left = index.stats().rescan_left
    recorder = Recorder(db, interval)
    time.sleep(1)
    lock = TimedLock()
    lock.watch(_engine(index))
    scanned = masked = steps = 0
    started = time.monotonic()
    while True:
        step = index._maintenance.rescan_step(lock)
        scanned, masked, steps = scanned + step.scanned, masked + step.masked, steps + 1
        if not step.more:
            break
    rescanned = time.monotonic()
    scrubbed = index._maintenance.scrub(None, short_steps=True)  # as index.rescan() does
    done = time.monotonic()
    time.sleep(1)
    report = recorder.finish()
    holds = [s * 1000 for s in lock.holds]
    emit("rescan_left_before", "recall", left, "turns")
    emit("rescanned", "recall", scanned, "turns")
    emit("masked", "recall", masked, "turns")
    emit("rescan_steps", "recall", steps, "steps")
    emit("rescan_ms", "recall", (rescanned - started) * 1000, "ms")
    emit("rescan_scrub_ms", "recall", (done - rescanned) * 1000, "ms")
    emit("rescan_total_ms", "recall", (done - started) * 1000, "ms")
    emit("scrub_done", "recall", float(scrubbed == "done"), "bool")
    emit("write_lock_hold_p50", "recall", percentile(holds, 0.5), "ms")
    emit("write_lock_hold_p99", "recall", percentile(holds, 0.99), "ms")
    emit("write_lock_hold_max", "recall", max(holds, default=0.0), "ms")
    in_database = [s * 1000 for s in lock.database_holds]
    emit("database_lock_hold_p99", "recall", percentile(in_database, 0.99), "ms")
    emit("database_lock_hold_max", "recall", max(in_database, default=0.0), "ms")
    report_records("recall", "", report)
    lock.emit("recall")
    emit("rescan_left_after", "recall", index.stats().rescan_left, "turns")
    index.close()
    raw = b"".join(p.read_bytes() for p in db.parent.glob(f"{db.name}*") if p.is_file())
    emit("secrets_left_in_bytes", "recall", raw.count(SECRET.encode()), "occurrences")


def upkeep_rescan(db: Path, interval: float) -> None:
    """The same on another copy, as the upkeep of a serving process takes it (`recall serve`):
    the maintenance port's steps until none is left, each re-scan step followed by as long
    idle, the scrub paid once at the end, then the index's merges and checkpoint."""
    from history import HistoryIndex

    index = HistoryIndex.open(db)
    index._upkeep.close()
    recorder = Recorder(db, interval)
    time.sleep(1)
    lock = TimedLock()
    lock.watch(_engine(index))
    steps = 0
    started = time.monotonic()
    while (state := index._maintenance.step(32, lock)) != "done" and steps < 100_000:
        steps += 1
        if state == "blocked":
            time.sleep(0.05)
    done = time.monotonic()
    time.sleep(1)
    report = recorder.finish()
    holds = [s * 1000 for s in lock.holds]
    emit("upkeep_steps", "upkeep", steps, "steps")
    emit("rescan_total_ms", "upkeep", (done - started) * 1000, "ms")
    emit("write_lock_hold_p50", "upkeep", percentile(holds, 0.5), "ms")
    emit("write_lock_hold_p99", "upkeep", percentile(holds, 0.99), "ms")
    emit("write_lock_hold_max", "upkeep", max(holds, default=0.0), "ms")
    in_database = [s * 1000 for s in lock.database_holds]
    emit("database_lock_hold_p99", "upkeep", percentile(in_database, 0.99), "ms")
    emit("database_lock_hold_max", "upkeep", max(in_database, default=0.0), "ms")
    report_records("upkeep", "", report)
    lock.emit("upkeep")
    emit("rescan_left_after", "upkeep", index.stats().rescan_left, "turns")
    index.close()
    raw = b"".join(p.read_bytes() for p in db.parent.glob(f"{db.name}*") if p.is_file())
    emit("secrets_left_in_bytes", "upkeep", raw.count(SECRET.encode()), "occurrences")


class StepTrace:
    """Every write transaction of an engine, statement by statement: each statement's wall time
    (and the turn's text it rewrote, for an UPDATE of turns), the commit's, the pages the WAL
    grew by, and the thread's CPU time against the wall time (a hold whose CPU time is much less
    than its wall time waited: descheduled, or on I/O)."""

    def __init__(self, engine: Any, wal: Path) -> None:
        from sqlalchemy import event
        from sqlalchemy.pool import Pool

        self.wal = wal
        self.done: list[dict[str, Any]] = []
        self._now: dict[str, Any] | None = None
        self._statement = 0.0

        def begun(conn: Any) -> None:
            self._now = {
                "began": time.monotonic(),
                "cpu": time.thread_time(),
                "wal": self._wal_bytes(),
                "statements": [],
                "caller": _caller(),
                "changes": _total_changes(conn.connection.dbapi_connection),
            }

        def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            self._statement = time.monotonic()

        def after(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
            if self._now is not None:
                took = (time.monotonic() - self._statement) * 1000
                chars = 0
                if statement.startswith("UPDATE turns") and isinstance(parameters, (tuple, list)):
                    chars = sum(len(p) for p in parameters if isinstance(p, str))
                changes = _total_changes(cursor.connection)
                wrote = changes - self._now.get("changes", changes)
                self._now["changes"] = changes
                kind = " ".join(statement.split(" ", 2)[:2])
                self._now["statements"].append((kind, round(took, 2), chars, wrote))

        def committing(conn: Any) -> None:
            if self._now is not None:
                raw = conn.connection.dbapi_connection
                self._now["levels"] = _levels(raw)
                self._now["committing"] = time.monotonic()

        def ended(conn: Any) -> None:
            now = self._now
            if now is None:
                return
            self._now = None
            end = time.monotonic()
            page = 4096
            self.done.append(
                {
                    "ms": round((end - now["began"]) * 1000, 2),
                    "cpu_ms": round((time.thread_time() - now["cpu"]) * 1000, 2),
                    "commit_ms": round((end - now.get("committing", end)) * 1000, 2),
                    "wal_pages": (self._wal_bytes() - now["wal"]) // (page + 24),
                    "caller": now["caller"],
                    "levels": now.get("levels"),
                    "statements": now["statements"],
                }
            )

        begun_only = begun

        def begun_immediate(conn: Any) -> None:  # the write transactions only
            if conn.get_execution_options().get("sqlite_begin") == "IMMEDIATE":
                begun_only(conn)

        pool = getattr(engine, "pool", Pool)
        event.listen(engine, "begin", begun_immediate)
        event.listen(engine, "before_cursor_execute", before)
        event.listen(engine, "after_cursor_execute", after)
        event.listen(engine, "commit", committing)
        event.listen(engine, "rollback", ended)
        event.listen(pool, "checkin", lambda *a: ended(None))

    def _wal_bytes(self) -> int:
        try:
            return self.wal.stat().st_size
        except OSError:
            return 0


def _total_changes(raw: Any) -> int:
    return int(raw.execute("SELECT total_changes()").fetchone()[0])


def _levels(raw: Any) -> list[tuple[int, int, int]]:
    """FTS5's structure record: each level's (merge under way, segments, pages)."""
    from history.store.sqlite import fts_levels

    row = raw.execute("SELECT block FROM turns_fts_data WHERE id = 10").fetchone()
    found = fts_levels.parse(bytes(row[0]) if row else b"")
    return [(level.merging, len(level.pages), sum(level.pages)) for level in found]


def trace_rescan(db: Path, interval: float, limit: int, upkeep: bool = False) -> None:
    """The doctor's path (or the upkeep's: `upkeep`, every engine of the process) with every
    write transaction traced (StepTrace); prints the longest."""
    from history import HistoryIndex
    from history.store.sqlite.maintenance import SqliteMaintenance

    index = HistoryIndex.open(db)
    index._upkeep.close()
    maintenance = index._maintenance
    assert isinstance(maintenance, SqliteMaintenance)
    wal = Path(f"{db}-wal")
    from sqlalchemy import Engine

    watched: Any = Engine if upkeep else maintenance._rescan_writer
    traces = [StepTrace(watched, wal)]
    recorder = Recorder(db, interval) if interval > 0 else None
    time.sleep(1)
    lock = TimedLock()
    steps = 0
    while steps < limit:
        if upkeep:
            if maintenance.step(32, lock) == "done":
                break
        elif not maintenance.rescan_step(lock).more:
            break
        steps += 1
    if recorder is not None:
        report_records("trace", "", recorder.finish())
    done = [t for trace in traces for t in trace.done]
    holds = [t["ms"] for t in done]
    emit("traced_transactions", "trace", len(done), "transactions")
    emit("hold_p99", "trace", percentile(holds, 0.99), "ms")
    emit("hold_max", "trace", max(holds, default=0.0), "ms")
    emit("over_50ms", "trace", sum(h > 50 for h in holds), "transactions")
    for t in done:  # in order, compact
        wrote = sum(statement[3] for statement in t["statements"])
        print(json.dumps({"all": [t["ms"], t["commit_ms"], wrote, t["caller"][:24], t["levels"]]}))
    for t in sorted(done, key=lambda t: -t["ms"])[: limit and 12]:
        slow = sorted(t["statements"], key=lambda s: -s[1])[:6]
        print(json.dumps({**t, "statements": len(t["statements"]), "slowest": slow}))
    index.close()


def baseline_redact(db: Path) -> None:
    """Every stored text read and redacted once, nothing written."""
    import sqlean.dbapi2 as sqlean

    from history.redaction import redact

    conn = sqlean.connect(str(db))
    started = time.monotonic()
    changed = scanned = 0
    for row in conn.execute("SELECT asked, answered, work, files, edited, tools FROM turns"):
        scanned += 1
        changed += any(redact(text) != text for text in row)
    emit("rescanned", "baseline", scanned, "turns")
    emit("masked", "baseline", changed, "turns")
    emit("rescan_total_ms", "baseline", (time.monotonic() - started) * 1000, "ms")
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="a recall database to copy")
    parser.add_argument("--every", type=int, default=100, help="one turn in EVERY gets a secret")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between records")
    parser.add_argument("--work", type=Path, help="where the copy goes (default: a temp dir)")
    parser.add_argument(
        "--trace", type=int, default=0, help="trace this many steps of the doctor's path only"
    )
    parser.add_argument("--trace-upkeep", action="store_true", help="trace the upkeep's path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        copy = Path(work) / "rescan.db"
        copy_to_disk(args.source, copy)
        planted = plant(copy, args.every)
        print(json.dumps({"meta": {"source": str(args.source), "planted": planted}}))
        if args.trace:
            trace_rescan(copy, args.interval, args.trace, args.trace_upkeep)
            return
        second = Path(work) / "upkeep.db"
        shutil.copyfile(copy, second)
        baseline_redact(copy)
        recall_rescan(copy, args.interval)
        upkeep_rescan(second, args.interval)


if __name__ == "__main__":
    main()

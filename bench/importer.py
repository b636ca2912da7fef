"""Bulk import of the corpus into one implementation, run in a fresh process per implementation
so that its peak RSS is the import's own (the baseline's process never loads the project).
Prints JSON lines; leaves the database behind for `bench.run` to measure further.

    python -m bench.importer recall|baseline SIZE --db PATH|URL [--end ISO] [--seed N] [--batch N]
        [--mix standard|common|work]

`--db` may be a PostgreSQL URL (`postgresql+psycopg://user@host/db`) for the project's index.

The clock covers the writes only (`record_many` per batch, then the index upkeep they left,
`tidy()`; the baseline's `executemany` per batch inside one transaction, plus its COMMIT); making
the turns is timed separately.
"""

from __future__ import annotations

import argparse
import itertools
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bench.baseline import Baseline
from bench.corpus import default_end
from bench.measure import BASELINE, CORPUS, RECALL, Emitter, peak_rss_mb, warn
from bench.mixes import MIXES, carries_work, turns
from bench.world import projects, word_weights

if TYPE_CHECKING:
    from history import HistoryIndex


def run_import(
    impl: str,
    size: int,
    db: str,
    seed: int,
    end: datetime,
    batch: int,
    driver: str,
    mix: str = "standard",
) -> None:
    out = Emitter(size)
    projects(seed), word_weights()  # build the world before the clock starts
    stream = turns(mix, seed, end)
    generating = writing = writing_cpu = 0.0
    written = 0
    recall: HistoryIndex | None = None
    if impl == RECALL:  # imported here: the baseline's process never loads the project
        from history import HistoryIndex

        recall = HistoryIndex.open(db)
    baseline = Baseline(Path(db), driver, work=carries_work(mix)) if impl == BASELINE else None
    out.emit("rss_after_open", impl, peak_rss_mb(), "MB")  # libraries loaded, nothing written
    if baseline is not None:
        baseline.begin()
    while written < size:
        started = time.perf_counter()
        chunk = list(itertools.islice(stream, min(batch, size - written)))
        generated, generated_cpu = time.perf_counter(), time.process_time()
        if recall is not None:
            counts = recall.record_many(chunk)
            if counts.new != len(chunk):
                warn(f"record_many stored {counts.new} of {len(chunk)} new turns: {counts}")
        elif baseline is not None:
            baseline.record_batch(chunk)
        generating += generated - started
        writing += time.perf_counter() - generated
        writing_cpu += time.process_time() - generated_cpu
        written += len(chunk)
    if baseline is not None:
        started, started_cpu = time.perf_counter(), time.process_time()
        baseline.commit()
        writing += time.perf_counter() - started
        writing_cpu += time.process_time() - started_cpu
        baseline.close()
    if recall is not None:
        # The merging the writes left for later is part of the import's cost.
        started, started_cpu = time.perf_counter(), time.process_time()
        recall.tidy()
        upkeep = time.perf_counter() - started
        writing += upkeep
        writing_cpu += time.process_time() - started_cpu
        out.emit("upkeep_after_import", impl, upkeep * 1000, "ms")
        recall.close()
    out.emit("bulk_import", impl, size / writing, "turns/s", batch=batch)
    # The same writes per second of this process's CPU (SQLite runs in it): what the import
    # costs, whatever else the machine is doing.
    out.emit("bulk_import_cpu", impl, size / writing_cpu, "turns/cpu-s", batch=batch)
    out.emit("peak_rss_import", impl, peak_rss_mb(), "MB")
    out.emit("generator", CORPUS, size / generating, "turns/s", alongside=impl)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.importer", description=__doc__)
    parser.add_argument("impl", choices=(RECALL, BASELINE))
    parser.add_argument("size", type=int)
    parser.add_argument("--db", required=True, help="a file path, or a PostgreSQL URL")
    parser.add_argument("--end", type=datetime.fromisoformat, default=default_end())
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--baseline-driver", choices=("sqlite3", "sqlean"), default="sqlite3")
    parser.add_argument("--mix", choices=tuple(MIXES), default="standard")
    args = parser.parse_args(argv)
    run_import(
        args.impl,
        args.size,
        args.db,
        args.seed,
        args.end,
        args.batch,
        args.baseline_driver,
        args.mix,
    )


if __name__ == "__main__":
    main()

"""Run the benchmark: the project's index against raw `sqlite3` on the same generated corpus.

    python -m bench.run --sizes 10000 100000 [--queries 200] [--out bench/out]

For each size, each implementation's bulk import runs in a fresh subprocess (`bench.importer`,
so that its peak RSS is the import's own) and leaves its database; then this process opens both
databases and measures record latency, size on disk, search, ranking fidelity and forgetting,
the two interleaved call by call.
Every measurement is one JSON line on stdout (and in `<out>/results-<time>.jsonl`):
`{"size", "metric", "impl": "recall" | "baseline" | "corpus" | "ratio", "value", "unit"}`;
a `ratio` line (recall / baseline) follows each metric both implementations have. The run ends
with the same numbers as Markdown tables, one per size (`bench.report`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from bench import phases, report, views
from bench.baseline import Baseline, driver
from bench.corpus import GeneratedTurn, default_end
from bench.measure import BASELINE, RECALL, Emitter, warn
from bench.mixes import queries, stream_name, turns
from bench.tantivy_yardstick import TANTIVY, TantivyIndex
from history import HistoryIndex

ROOT = Path(__file__).resolve().parent.parent
FORGOTTEN_PROJECT = "/home/dev/proj-10"  # a middling one: about 4% of the turns
PHASES = ("import", "record", "size", "search", "views", "forget")
QUERY_MIXES = ("standard", "common", "work")
# Each corpus's query mixes, as keys of bench.mixes.MIXES.
CORPORA = {
    "first": {"standard": "standard", "common": "common", "work": "work"},
    # The second corpus's turns all carry a work log: its `work` mix is its standard one.
    "second": {"standard": "second", "common": "second-common", "work": "second"},
}


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200, help="search queries per size")
    parser.add_argument("--records", type=int, default=500, help="one-per-commit records timed")
    parser.add_argument("--batch", type=int, default=1000, help="turns per record_many call")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--baseline-driver", choices=("sqlite3", "sqlean"), default="sqlite3")
    parser.add_argument(
        "--mix",
        choices=QUERY_MIXES,
        default="standard",
        help="the queries (and, on the first corpus, the turns): standard (bench.corpus), "
        "common (bench.common_mix: every query word a frequent one) or work (the standard "
        "turns and queries, each turn with a work log: bench.work_mix)",
    )
    parser.add_argument(
        "--corpus",
        choices=tuple(CORPORA),
        default="first",
        help="first (bench.corpus, bench.common_mix) or second (bench.corpus2: another "
        "vocabulary, frequency law and turn lengths, every turn with its work log; both mixes "
        "search the same turns)",
    )
    parser.add_argument(
        "--yardstick",
        choices=("none", TANTIVY),
        default="none",
        help="tantivy: also build a tantivy-py index over the same turns and report each search "
        "figure as a ratio to its own (needs the bench extra; use with --phases import search)",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the databases in <out>/db-<size>-seed<seed>/, for runs without `import`",
    )
    parser.add_argument(
        "--phases",
        nargs="+",
        choices=PHASES,
        default=list(PHASES),
        help="what to measure; without `import` the databases a --keep run left are used again "
        "(search alone leaves them as they were; record adds turns, views adds one 1,000-turn "
        "conversation once, forget removes some)",
    )
    args = parser.parse_args(argv)
    args.mix = CORPORA[args.corpus][args.mix]  # the key of bench.mixes.MIXES
    return args


def _import(args: argparse.Namespace, out: Emitter, impl: str, db: Path, end: datetime) -> None:
    command = [sys.executable, "-m", "bench.importer", impl, str(out.size)]
    command += ["--db", str(db), "--end", end.isoformat(), "--seed", str(args.seed)]
    command += ["--batch", str(args.batch), "--baseline-driver", args.baseline_driver]
    command += ["--mix", args.mix]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        for line in child.stdout:
            out.passthrough(line)
    if child.returncode != 0:
        raise SystemExit(f"the {impl} import failed (exit {child.returncode})")


def _workdir(args: argparse.Namespace, size: int) -> tuple[Path, bool]:
    """Where the databases live, and whether it is a temporary directory to remove."""
    if not args.keep and "import" in args.phases:
        return Path(tempfile.mkdtemp(prefix=f"size-{size}-", dir=args.out)), True
    mix = "" if args.mix == "standard" else f"-{stream_name(args.mix)}"
    work = args.out / f"db-{size}-seed{args.seed}{mix}"
    if "import" not in args.phases and not (work / "recall.db").exists():
        raise SystemExit(f"no databases in {work}: run once with --keep and the import phase")
    work.mkdir(exist_ok=True)
    for leftover in work.glob("*.db*") if "import" in args.phases else ():
        leftover.unlink()
    return work, False


def run_size(args: argparse.Namespace, size: int, log: TextIO) -> None:
    out = Emitter(size, log)
    end = default_end()
    work, temporary = _workdir(args, size)
    recall_db, baseline_db = work / "recall.db", work / "baseline.db"
    try:
        if "import" in args.phases:
            _import(args, out, RECALL, recall_db, end)
            _import(args, out, BASELINE, baseline_db, end)
        recall = HistoryIndex.open(recall_db)
        baseline = Baseline(baseline_db, args.baseline_driver)
        try:
            _measure(args, out, recall, baseline, recall_db, end)
        finally:
            recall.close()
            baseline.close()
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)


def _measure(
    args: argparse.Namespace,
    out: Emitter,
    recall: HistoryIndex,
    baseline: Baseline,
    recall_db: Path,
    end: datetime,
) -> None:
    stored = baseline.count()
    if recall.count() != stored:
        warn(f"recall holds {recall.count()} turns, the baseline {stored}")
    recorded: list[GeneratedTurn] = []
    if "record" in args.phases:
        # New turns, from a seed no earlier run on these databases used: nothing collides.
        fresh = turns(args.mix, args.seed * 1_000_003 + stored, end)
        recorded = list(itertools.islice(fresh, phases.WARM_UP + args.records))
        phases.record_latency(out, recall, baseline, recorded)
    if "size" in args.phases:
        phases.bytes_per_turn(out, recall, recall_db, baseline, baseline.count())
    if "search" in args.phases:
        benchmark_queries = queries(args.mix, args.queries, args.seed)
        files = {RECALL: recall_db, BASELINE: baseline.path}
        yardsticks = {}
        if args.yardstick == TANTIVY:
            directory = recall_db.parent / "tantivy"
            yardstick = _tantivy(args, out, directory, end, (stored, baseline.count()), recorded)
            files[TANTIVY] = yardstick.directory
            yardsticks[TANTIVY] = lambda query, project: yardstick.search(query.terms, project)
        found = phases.search(out, recall, baseline, benchmark_queries, files, 5, yardsticks)
        phases.fidelity(out, recall, baseline, benchmark_queries, found)
    if "views" in args.phases:
        views.measure(out, recall, baseline, end)
    if "forget" in args.phases:
        phases.forget(out, recall, baseline, FORGOTTEN_PROJECT)


def _tantivy(
    args: argparse.Namespace,
    out: Emitter,
    directory: Path,
    end: datetime,
    counts: tuple[int, int],
    recorded: list[GeneratedTurn],
) -> TantivyIndex:
    """The yardstick over the turns the databases were filled with (and the ones recorded):
    `counts` is what the baseline held before this run recorded and what it holds now."""
    imported, now = counts
    yardstick = TantivyIndex(directory)
    same = itertools.chain(itertools.islice(turns(args.mix, args.seed, end), imported), recorded)
    added, seconds = yardstick.build(same)
    if added != now:
        warn(f"tantivy holds {added} turns, the baseline {now}: run with --phases import search")
    out.emit("bulk_import", TANTIVY, added / seconds, "turns/s")
    out.emit("bytes_per_turn", TANTIVY, yardstick.bytes() / added, "B")
    return yardstick


def _meta(args: argparse.Namespace) -> dict[str, object]:
    return {
        "python": platform.python_version(),
        "sqlite_recall": driver("sqlean").sqlite_version,
        "sqlite_baseline": driver(args.baseline_driver).sqlite_version,
        "stdlib_sqlite": sqlite3.sqlite_version,
        "machine": platform.machine(),
        "mix": args.mix,
        "load_average": list(os.getloadavg()),
        "argv": sys.argv[1:],
    }


def main(argv: list[str] | None = None) -> None:
    args = _arguments(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    results = args.out / f"results-{stamp}.jsonl"
    with open(results, "w", encoding="utf-8") as log:
        log.write(json.dumps({"meta": _meta(args)}) + "\n")
        for size in args.sizes:
            run_size(args, size, log)
    # After the JSON lines (for programs), the same numbers for a person: one table per size.
    print(f"\n## Results ({results})\n\n{report.tables(report.load(results))}", flush=True)


if __name__ == "__main__":
    main()

"""Every ranking variant named, on every development set, full and 4-word queries: one command.

    python -m bench.quality_eval VARIANT [VARIANT ...] [--sets a,b] [--out FILE]
    python -m bench.quality_eval --compare BEFORE AFTER FILE [FILE ...]   # a before/after table

VARIANT is `recall` (the project's search as checked out), the evaluator's own `weighted`, or a
name in bench/quality_variants.py. Each set's index is built once per variant and searched with
the full changelog sentences and with their first 4 content words (`eval.py --max-words 4`),
through ../shared/quality/eval.py's own scoring. Prints one JSON line per (set, variant, length)
and a Markdown table; the lines also go to FILE (default bench/out/quality/results-<time>.jsonl).
Sets are built by `python -m bench.quality_sets` (see bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.quality_build import QUALITY_DIR
from bench.quality_sets import OUT, set_dirs

SHORT_QUERY_WORDS = 4
METRICS = ("hit@1", "hit@5", "hit@10", "mrr@10")


def evaluator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("shared_quality_eval", QUALITY_DIR / "eval.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: no evaluator at {QUALITY_DIR / 'eval.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_turns(data_dir: str) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = evaluator().load_turns(data_dir)
    return turns


def search_for(shared: ModuleType, name: str, data_dir: Path) -> Any:
    if name in shared.BUILTIN:
        return shared.fts_search(
            shared.fts_index(shared.load_turns(data_dir)), *shared.BUILTIN[name]
        )
    from bench import quality_variants

    return getattr(quality_variants, name)(str(data_dir))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="+", help="variant names (with --compare: result files)")
    ap.add_argument("--sets", help="comma-separated (default: every set)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        found = [
            json.loads(line)
            for path in args.variants
            for line in Path(path).read_text(encoding="utf-8").splitlines()
            if line.startswith("{")
        ]
        print(compared(found, *args.compare))
        return 0
    shared = evaluator()
    dirs = set_dirs()
    chosen = args.sets.split(",") if args.sets else list(dirs)
    out = args.out or OUT / f"results-{datetime.now(UTC):%Y%m%dT%H%M%S}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with out.open("w", encoding="utf-8") as sink:
        for set_name in chosen:
            queries = shared.load_queries(dirs[set_name])
            for variant in args.variants:
                search = search_for(shared, variant, dirs[set_name])
                rows += scored(shared, set_name, variant, search, queries, sink)
    print(table(rows))
    return 0


def scored(
    shared: ModuleType, set_name: str, variant: str, search: Any, queries: Any, sink: Any
) -> list[dict[str, Any]]:
    """`search` scored by the shared evaluator on every query of a set, full and cut to 4
    words: a row for each, printed and written to `sink` as JSON lines."""
    rows = []
    for max_words in (None, SHORT_QUERY_WORDS):
        result = shared.evaluate(variant, search, queries, "all", max_words, [])
        row = {"set": set_name, "words": max_words or "full", **result}
        print(json.dumps(row), flush=True)
        sink.write(json.dumps(row) + "\n")
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| set | variant | full h@1 / h@5 / h@10 / MRR | 4 words h@1 / h@5 / h@10 / MRR |"]
    lines.append("|---|---|---|---|")
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for row in rows:
        values = " / ".join(f"{row[m]:.3f}" for m in METRICS)
        cells.setdefault((row["set"], row["method"]), {})[str(row["words"])] = values
    for (set_name, variant), by_length in cells.items():
        full, short = by_length.get("full", ""), by_length.get(str(SHORT_QUERY_WORDS), "")
        lines.append(f"| {set_name} | {variant} | {full} | {short} |")
    return "\n".join(lines)


def compared(rows: list[dict[str, Any]], before: str, after: str) -> str:
    """Each set and query length: BEFORE's and AFTER's hit@1/5/10 and MRR, and the change."""
    by = {(r["set"], str(r["words"]), r["method"]): r for r in rows}
    lines = [
        f"| set | queries | {before} h@1 / h@5 / h@10 / MRR | {after} | change (points) |",
        "|---|---|---|---|---|",
    ]
    for set_name, words in dict.fromkeys((r["set"], str(r["words"])) for r in rows):
        old, new = by.get((set_name, words, before)), by.get((set_name, words, after))
        if old is None or new is None:
            continue
        cells = [" / ".join(f"{row[m]:.3f}" for m in METRICS) for row in (old, new)]
        change = " / ".join(f"{100 * (new[m] - old[m]):+.1f}" for m in METRICS)
        label = "full" if words == "full" else f"{words} words"
        lines.append(f"| {set_name} | {label} | {cells[0]} | {cells[1]} | {change} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

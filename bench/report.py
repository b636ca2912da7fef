"""Turn `bench.run`'s JSON lines into Markdown tables, or compare two runs.

    python -m bench.report bench/out/results-<time>.jsonl            # a table per size
    python -m bench.report OLD.jsonl NEW.jsonl                       # recall: old, new, new/old

Lines that are not measurements (the `meta` line, warnings) are skipped, so `bench.run`'s
stdout saved to a file works as well as its results file.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.measure import BASELINE, CORPUS, RATIO, RECALL

Key = tuple[int, str]  # size, metric


def load(path: Path) -> dict[Key, dict[str, Any]]:
    """(size, metric) -> {impl: value, ..., "unit": unit}, in the order first seen."""
    table: dict[Key, dict[str, Any]] = defaultdict(dict)
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or "metric" not in record:
            continue
        row = table[(record["size"], record["metric"])]
        row[record["impl"]] = record["value"]
        row.setdefault("unit", record["unit"])
    return table


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}" if isinstance(value, float) else f"{value:,}"


def tables(results: dict[Key, dict[str, Any]]) -> str:
    out: list[str] = []
    for size in sorted({size for size, _ in results}):
        out += [f"### {size:,} turns", ""]
        out += [
            "| metric | unit | recall | baseline | recall / baseline |",
            "|---|---|--:|--:|--:|",
        ]
        corpus = []
        for (row_size, metric), row in results.items():
            if row_size != size:
                continue
            if CORPUS in row:
                corpus.append(f"| {metric} | {row['unit']} | {_cell(row[CORPUS])} |")
                continue
            cells = [_cell(row.get(impl)) for impl in (RECALL, BASELINE, RATIO)]
            out.append(f"| {metric} | {row['unit']} | " + " | ".join(cells) + " |")
        if corpus:
            out += ["", "| corpus | unit | value |", "|---|---|--:|", *corpus]
        out.append("")
    return "\n".join(out)


def compare(old: dict[Key, dict[str, Any]], new: dict[Key, dict[str, Any]]) -> str:
    out = ["| size | metric | unit | old recall | new recall | new / old | baseline (new) |"]
    out.append("|--:|---|---|--:|--:|--:|--:|")
    for key, row in new.items():
        if RECALL not in row or RECALL not in old.get(key, {}):
            continue
        before, after = old[key][RECALL], row[RECALL]
        change = f"{after / before:.2f}" if before else ""
        cells = [_cell(before), _cell(after), change, _cell(row.get(BASELINE))]
        out.append(f"| {key[0]:,} | {key[1]} | {row['unit']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__)
    parser.add_argument("results", type=Path, nargs="+", help="one file: tables; two: compare")
    args = parser.parse_args(argv)
    if len(args.results) == 1:
        print(tables(load(args.results[0])))
    elif len(args.results) == 2:
        print(compare(load(args.results[0]), load(args.results[1])))
    else:
        parser.error("give one results file (tables) or two (old, new)")


if __name__ == "__main__":
    main()

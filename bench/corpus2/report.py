"""One Markdown table of runs made with `--yardstick tantivy`, every corpus, mix and size a row:

    python -m bench.corpus2.report bench/out/results-A.jsonl bench/out/results-B.jsonl ...

Each file's `meta` line names its corpus and mix (`bench.mixes` keys: standard, common,
second, second-common).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.measure import BASELINE, RECALL
from bench.tantivy_yardstick import TANTIVY

NAMES = {
    "standard": ("first", "standard"),
    "common": ("first", "common"),
    "second": ("second", "standard"),
    "second-common": ("second", "common"),
}
HEADER = (
    "| corpus, mix, size | every p50 / p95 ms: recall · raw · tantivy "
    "| one project p50 / p95: recall · raw · tantivy "
    "| recall / tantivy p50, p95: every · one | raw / tantivy p50, p95: every · one "
    "| recall top-5 overlap every / one | cut short every / one | tantivy's overlap every / one |"
)


def _figures(path: Path) -> tuple[str, dict[tuple[int, str, str], float]]:
    mix, figures = "standard", {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "meta" in record:
            mix = record["meta"].get("mix", mix)
        elif "metric" in record:
            figures[(record["size"], record["metric"], record["impl"])] = record["value"]
    return mix, figures


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _pair(figures: dict[tuple[int, str, str], float], size: int, scope: str, impl: str) -> str:
    low, high = (figures.get((size, f"search_{scope}_p{p}", impl)) for p in (50, 95))
    return f"{_ms(low)} / {_ms(high)}"


def _row(mix: str, size: int, figures: dict[tuple[int, str, str], float]) -> str:
    corpus, queries = NAMES.get(mix, (mix, ""))
    cells = [f"{corpus}, {queries}, {size:,}"]
    for scope in ("every", "project"):
        cells.append(
            " · ".join(_pair(figures, size, scope, i) for i in (RECALL, BASELINE, TANTIVY))
        )
    for impl in (RECALL, BASELINE):
        ratios = [
            _pair(figures, size, scope, f"{impl}/{TANTIVY}") for scope in ("every", "project")
        ]
        cells.append(" · ".join(ratios))
    for metric, impl in (
        ("top5_overlap", RECALL),
        ("approximate", RECALL),
        ("top5_overlap", TANTIVY),
    ):
        values = []
        for scope in ("every", "project"):
            name = f"search_{scope}_approximate" if metric == "approximate" else f"{metric}_{scope}"
            value = figures.get((size, name, impl))
            values.append("–" if value is None else f"{value:.3g}")
        cells.append(" / ".join(values))
    return "| " + " | ".join(cells) + " |"


def table(paths: list[Path]) -> str:
    rows = [HEADER, "|---|---|---|---|---|--:|--:|--:|"]
    runs = [_figures(path) for path in paths]
    order = list(NAMES)
    runs.sort(key=lambda run: order.index(run[0]) if run[0] in order else len(order))
    for mix, figures in runs:
        for size in sorted({size for size, _, _ in figures}):
            rows.append(_row(mix, size, figures))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.corpus2.report", description=__doc__)
    parser.add_argument("results", type=Path, nargs="+")
    print(table(parser.parse_args(argv).results))


if __name__ == "__main__":
    main()

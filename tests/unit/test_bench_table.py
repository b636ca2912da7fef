"""`make bench` (bench.run) ends with a table a person can read, after the JSON lines programs
read: a small run, every measurement line first, then one Markdown table per size."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.bench_runs import run_bench


def test_a_bench_run_ends_with_a_table_after_its_json_lines(tmp_path: Path) -> None:
    done = run_bench(tmp_path, "--records", "10", "--phases", "import", "record", "search")
    lines = done.stdout.splitlines()
    table_starts = lines.index(next(line for line in lines if line.startswith("## Results")))
    measured = [json.loads(line) for line in lines[:table_starts] if line.startswith("{")]
    assert {"bulk_import", "search_every_p95"} <= {line["metric"] for line in measured}
    table = lines[table_starts:]
    assert "### 300 turns" in table
    assert "| metric | unit | recall | baseline | recall / baseline |" in table
    rows = [line for line in table if line.startswith("| search_every_p95 |")]
    assert len(rows) == 1 and rows[0].count("|") == 6

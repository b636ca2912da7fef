"""`make bench` (bench.run) ends with a table a person can read, after the JSON lines programs
read: a small run, every measurement line first, then one Markdown table per size."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_bench_run_ends_with_a_table_after_its_json_lines(tmp_path: Path) -> None:
    args = ["--sizes", "300", "--queries", "5", "--records", "10", "--out", str(tmp_path)]
    args += ["--phases", "import", "record", "search"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    table_starts = lines.index(next(line for line in lines if line.startswith("## Results")))
    measured = [json.loads(line) for line in lines[:table_starts] if line.startswith("{")]
    assert {"bulk_import", "search_every_p95"} <= {line["metric"] for line in measured}
    table = lines[table_starts:]
    assert "### 300 turns" in table
    assert "| metric | unit | recall | baseline | recall / baseline |" in table
    rows = [line for line in table if line.startswith("| search_every_p95 |")]
    assert len(rows) == 1 and rows[0].count("|") == 6

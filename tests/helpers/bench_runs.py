"""A small `python -m bench.run` in a subprocess, as `make bench` runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT


def run_bench(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """bench.run over 300 turns with 5 queries, its files in `out`; it must succeed."""
    command = [sys.executable, "-m", "bench.run", "--sizes", "300", "--queries", "5"]
    command += ["--out", str(out), *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done

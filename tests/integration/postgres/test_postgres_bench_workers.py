"""The forget-under-load bench's recorders and searchers (bench.pg_forget_load) end with the
process that started them, whichever way it ends."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

# Without /proc, `running` would call every worker gone and the test could not fail.
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")

STARTS_THEN_IS_KILLED = """
import os, signal, sys, time
from bench.pg_forget_load import Workers

workers = Workers(sys.argv[1])
workers.searchers(1)
workers.recorders(1, ["/work/live"], 0.2)
print(" ".join(str(process.pid) for process in workers.processes), flush=True)
time.sleep(1)  # begun or not, each looks for its parent at every turn of its loop
os.kill(os.getpid(), signal.SIGKILL)
"""


def running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie left for a parent that does not reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_the_workers_stop_when_the_process_that_started_them_is_killed(
    postgres_url: str, tmp_path: Path
) -> None:
    """Regression: a test run killed mid-bench left its workers recording into and searching
    its database for as long as the machine ran (40 minutes, once)."""
    said = tmp_path / "said"
    with said.open("w") as out:  # a file, not a pipe: the workers hold it too
        subprocess.run(
            [sys.executable, "-c", STARTS_THEN_IS_KILLED, postgres_url],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=120,
            cwd=ROOT,
        )
    workers = [int(pid) for pid in said.read_text().split()[:2] if pid.isdigit()]
    assert len(workers) == 2, said.read_text()
    deadline = time.monotonic() + 30
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if running(pid)]

"""bench.masking_cost: every way of masking measured, on copies, each copy's full-text index
sound after; the index it reads is left as it was."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from history import HistoryIndex
from tests.helpers.paths import ROOT
from tests.helpers.templates import migrated_copy
from tests.helpers.turns import raw_turn


def test_every_way_is_measured_on_copies_and_the_index_is_left_as_it_was(tmp_path: Path) -> None:
    database = migrated_copy(tmp_path / "history.db")
    index = HistoryIndex.open(database)
    index.record_many(
        [
            raw_turn(f"t{n}", "s", "/work/p", f"how to hash passwords {n}", "use argon2")
            for n in range(40)
        ]
    )
    assert index.tidy()
    index.close()
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    command = [sys.executable, "-m", "bench.masking_cost", "--db", str(database), "--turns", "20"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    measured = {(line["metric"], line["impl"]): line for line in lines}
    for impl in ("secure-delete off (the usual way)", "secure-delete on", "in place (shipped)"):
        assert measured[("masking p50", impl)]["turns"] == 20
        assert measured[("masking p100", impl)]["value"] > 0
        assert measured[("integrity", impl)]["value"] == 1  # FTS5's own check, after
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before

"""What masking one stored turn holds the write lock for, with FTS5's secure-delete on and off.

A re-scan that masks a turn rewrites its text, so FTS5 deletes the turn's old entry and adds the
new one. The shipped re-scan writes with secure-delete off and owes a whole-index rewrite for
after (history/store/sqlite/maintenance.py, `_masking`), whose steps at 1M hold the lock longer
than a re-scan step may. With secure-delete on, the old entry's words would leave the index in
the masking transaction itself and no rewrite would be owed; this measures what that costs per
turn, beside the shipped way, on a copy of an index built by `bench.importer`.

    python -m bench.masking_cost --db PATH [--turns 300] [--seed 1] [--out FILE]

Each turn is masked in its own transaction (BEGIN IMMEDIATE to COMMIT, as a re-scan step's
write), its answer given a masked ending, on a copy of the file per mode.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from bench.measure import Emitter, percentile
from history.store.sqlite import fts
from history.store.sqlite.connection import set_up, sqlite_driver

_TEXT_CHARS = "SELECT length(asked) + length(answered) + length(coalesce(work, '')) FROM turns"
_MASK = "UPDATE turns SET answered = answered || ' [masked]' WHERE id = ?"


def masking_ms(database: Path, ids: list[int], secure_delete: bool) -> tuple[list[float], int]:
    """Each turn's masking transaction in ms, and the median turn's characters."""
    conn: sqlite3.Connection = sqlite_driver().connect(str(database), isolation_level=None)
    # As the re-scan's writer: its commits never copy the WAL back (the upkeep does, apart).
    set_up(conn, busy_timeout_ms=5_000, wal_autocheckpoint_pages=0)
    conn.execute(fts.secure_delete_statement(on=secure_delete))
    held: list[float] = []
    chars: list[int] = []
    for turn in ids:
        found = conn.execute(f"{_TEXT_CHARS} WHERE id = ?", (turn,)).fetchone()
        if found is None:
            continue
        began = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(_MASK, (turn,))
        conn.execute("COMMIT")
        held.append((time.perf_counter() - began) * 1000)
        chars.append(int(found[0]))
    conn.close()
    return held, sorted(chars)[len(chars) // 2] if chars else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--db", type=Path, required=True, help="an index bench.importer built")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="also append the JSON lines to this file")
    args = parser.parse_args()
    with sqlite3.connect(args.db) as conn:
        size = int(conn.execute("SELECT count(*) FROM turns").fetchone()[0])
        top = int(conn.execute("SELECT max(id) FROM turns").fetchone()[0])
    ids = random.Random(args.seed).sample(range(1, top + 1), min(args.turns, top))
    log = args.out.open("a", encoding="utf-8") if args.out else None
    emitter = Emitter(size, log)
    with tempfile.TemporaryDirectory(prefix="recall-masking-") as scratch:
        for secure_delete in (False, True):
            copy = Path(scratch) / f"secure-delete-{secure_delete}.db"
            shutil.copy(args.db, copy)
            held, median_chars = masking_ms(copy, ids, secure_delete)
            impl = "secure-delete on" if secure_delete else "secure-delete off (shipped)"
            for p in (50, 90, 99, 100):
                emitter.emit(
                    f"masking p{p}", impl, round(percentile(held, p), 2), "ms", turns=len(held)
                )
            emitter.emit("median turn", impl, median_chars, "chars")
            copy.unlink()
    if log is not None:
        log.close()


if __name__ == "__main__":
    main()

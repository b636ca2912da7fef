"""What `recall doctor --recover` costs and how much it brings back, against a plain copy.

    python -m bench.recovery --sizes 10000 50000 --damaged-pages 5

For each size: a history of that many turns (bench.corpus-like text, 10 turns a conversation)
is checkpointed, then a few leaf pages of `turns` (spread through the file) are overwritten with
random bytes. The baseline copies the same table of the undamaged file into an empty one with
raw sqlite3 (`INSERT INTO ... SELECT`, no triggers, no damage). `salvage` is the doctor's
recovery into a new migrated file (its triggers fill the full-text index and the summaries).
Prints one JSON line per size: turns stored, recovered, unreadable stretches, and milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite.opening import open_database
from history.store.sqlite.recovery import salvage

WORDS = [
    "login",
    "token",
    "session",
    "cache",
    "index",
    "query",
    "parser",
    "schema",
    "migrate",
    "deploy",
]


def build(db: Path, size: int, seed: int) -> None:
    rng = random.Random(seed)
    index = HistoryIndex.open(db)
    now = datetime.now(UTC)
    index.record_many(
        ImportedTurn(
            turn_id=f"t-{n}",
            session_id=f"s-{n // 10}",
            project=f"/p/{n % 7}",
            asked=" ".join(rng.choices(WORDS, k=30)) + f" {n}",
            answered=" ".join(rng.choices(WORDS, k=120)),
            files=("src/a.py",),
            edited=(),
            tools=("read_file",),
            tainted=False,
            asked_at=now,
        )
        for n in range(size)
    )
    index.close()
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(db))
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()


def damage(db: Path, pages: int, seed: int) -> list[int]:
    conn = sqlite_db.sqlite_driver().connect(str(db))
    leaves = [
        page
        for (page,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'turns' AND pagetype = 'leaf' ORDER BY pageno"
        )
    ]
    conn.close()
    chosen = sorted(random.Random(seed).sample(leaves, min(pages, len(leaves))))
    with db.open("r+b") as file:
        for page in chosen:
            file.seek((page - 1) * 4096)
            file.write(os.urandom(4096))
    return chosen


def baseline_copy(source: Path, target: Path) -> float:
    driver = sqlite_db.sqlite_driver()
    conn = driver.connect(str(target), isolation_level=None)
    conn.execute(f"ATTACH DATABASE '{source}' AS old")
    conn.execute("CREATE TABLE turns AS SELECT * FROM old.turns WHERE 0")
    started = time.perf_counter()
    conn.execute("BEGIN")
    conn.execute("INSERT INTO turns SELECT * FROM old.turns")
    conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return elapsed


def measure(size: int, pages: int, seed: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="recall-recovery-") as folder:
        work = Path(folder)
        sound = work / "sound.db"
        build(sound, size, seed)
        baseline_s = baseline_copy(sound, work / "baseline.db")
        damaged = work / "damaged.db"
        shutil.copy(sound, damaged)
        chosen = damage(damaged, pages, seed)
        target = open_database(sqlite_db.database_url(work / "recovered.db"), 5_000)
        started = time.perf_counter()
        result = salvage(damaged, target.engine)
        salvage_s = time.perf_counter() - started
        target.engine.dispose()
    return {
        "turns": size,
        "damaged_pages": len(chosen),
        "recovered": result.copied["turns"],
        "lost": size - result.copied["turns"],
        "unreadable_stretches": len(result.unreadable["turns"]),
        "baseline_sqlite3_copy_ms": round(baseline_s * 1000, 1),
        "salvage_ms": round(salvage_s * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--damaged-pages", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for size in args.sizes:
        print(json.dumps(measure(size, args.damaged_pages, args.seed)), flush=True)


if __name__ == "__main__":
    main()

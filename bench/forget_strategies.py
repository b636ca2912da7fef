"""What it costs to forget for real, by strategy, against a plain DELETE (the baseline).

    python -m bench.forget_strategies --sizes 10000 100000

For each size, one database per strategy with the same turns (a canary word in one session):
- `delete` (baseline): DELETE and a WAL checkpoint; the canary stays in the FTS5 segments.
- `optimize`: the standard library's SQLite (no FTS5 secure-delete), DELETE, then FTS5
  'optimize' (a rewrite of the whole index) and checkpoint(TRUNCATE).
- `secure-delete`: sqlean.py's SQLite, the FTS5 'secure-delete' option on, DELETE, checkpoint.
Prints one JSON line per strategy: milliseconds for the delete and for the scrub, and whether the
canary (whole, or its last 8 bytes, since FTS5 prefix-compresses terms) is still in the files.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import string
import tempfile
import time
from pathlib import Path
from types import ModuleType

import sqlean.dbapi2 as sqlean

SCHEMA = (
    "CREATE TABLE turns(id INTEGER PRIMARY KEY, session_id TEXT, asked TEXT, answered TEXT)",
    "CREATE INDEX ix_session ON turns(session_id)",
    "CREATE VIRTUAL TABLE turns_fts USING fts5(asked, answered, content='turns',"
    " content_rowid='id')",
    "CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN INSERT INTO turns_fts(rowid, asked,"
    " answered) VALUES (new.id, new.asked, new.answered); END",
    "CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN INSERT INTO turns_fts(turns_fts, rowid,"
    " asked, answered) VALUES ('delete', old.id, old.asked, old.answered); END",
)


def measure(size: int, strategy: str, directory: Path) -> dict[str, object]:
    driver: ModuleType = sqlite3 if strategy == "optimize" else sqlean
    rng = random.Random(1)
    vocabulary = [
        "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(20_000)
    ]
    canary = "canaryzq" + "".join(rng.choices(string.ascii_lowercase, k=24))
    path = directory / f"{strategy}-{size}.db"
    conn = driver.connect(str(path), isolation_level=None)
    for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "secure_delete = ON"):
        conn.execute(f"PRAGMA {pragma}")
    for statement in SCHEMA:
        conn.execute(statement)
    if strategy == "secure-delete":
        conn.execute("INSERT INTO turns_fts(turns_fts, rank) VALUES ('secure-delete', 1)")
    conn.execute("BEGIN")
    for n in range(size):
        asked = " ".join(rng.choices(vocabulary, k=20)) + (f" {canary}" if n == size // 2 else "")
        answered = " ".join(rng.choices(vocabulary, k=100))
        conn.execute(
            "INSERT INTO turns(session_id, asked, answered) VALUES (?, ?, ?)",
            (f"s{n // 30}", asked, answered),
        )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM turns WHERE session_id = ?", (f"s{(size // 2) // 30}",))
    conn.execute("COMMIT")
    deleted = time.perf_counter()
    if strategy == "optimize":
        conn.execute("INSERT INTO turns_fts(turns_fts) VALUES ('optimize')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    scrubbed = time.perf_counter()
    conn.close()
    files = b"".join(p.read_bytes() for p in directory.glob(f"{path.name}*"))
    return {
        "size": size,
        "strategy": strategy,
        "delete_ms": round((deleted - started) * 1000, 1),
        "scrub_ms": round((scrubbed - deleted) * 1000, 1),
        "canary_left": canary.encode() in files,
        "canary_tail_left": canary[-8:].encode() in files,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            for strategy in ("delete", "optimize", "secure-delete"):
                print(json.dumps(measure(size, strategy, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()

"""What masking one stored turn holds the write lock for: FTS5's secure-delete off, on, and the
re-scan's write in place.

A re-scan that masks a turn rewrites its text. Written the usual way (the `turns_au` trigger),
FTS5 deletes the turn's old entry and adds the new one: with secure-delete off the old words
stay in old segments and a whole-index rewrite is owed (history/store/sqlite/maintenance.py,
`_masking`), whose steps at 1M hold the lock longer than a re-scan step may; with secure-delete
on they leave the index in the masking transaction itself, at the price of a page rewritten for
each word of the turn. The third way is the shipped one (history/store/sqlite/in_place.py):
secure-delete takes only the secret's words, the turn's other words get FTS5's delete markers,
the masked row is added; its split of the words (index_words.py) is made before the lock, as
the re-scan makes it, and is not timed. Each way runs on its own copy of an index built by
`bench.importer`, and the copy's `integrity-check` is reported after.

    python -m bench.masking_cost --db PATH [--turns 300] [--seed 1] [--out FILE]

Each turn is masked in its own transaction (BEGIN IMMEDIATE to COMMIT, as a re-scan step's
write): the last word of its answer, the secret, becomes `[masked]`.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DatabaseError

from bench.measure import Emitter, percentile
from history.store.sqlite import fts
from history.store.sqlite.connection import set_up, sqlite_driver

_TEXT_CHARS = "SELECT length(asked) + length(answered) + length(coalesce(work, '')) FROM turns"
_ROW = "SELECT asked, answered, files, work, project_tag FROM turns WHERE id = ?"
_MASK = "UPDATE turns SET answered = ? WHERE id = ?"
WAYS = ("secure-delete off (the usual way)", "secure-delete on", "in place (shipped)")


def _masked(answered: str) -> tuple[str, str, str]:
    """The answer without its last word, that word (the secret), the answer masked."""
    head, _, secret = answered.rstrip().rpartition(" ")
    return head, secret, f"{head} [masked]" if head else "[masked]"


def _mask_whole(conn: sqlite3.Connection, turn: int, row: Any) -> None:
    conn.execute(_MASK, (_masked(row[1])[2], turn))  # the turns_au trigger reindexes the row


def in_place_ms(database: Path, ids: list[int]) -> tuple[list[float], list[int], bool]:
    """The shipped way through the product's own code, on a SQLAlchemy engine of the copy."""
    from history.store import migrations
    from history.store.sqlite import engine as sqlite_db
    from history.store.sqlite import in_place, index_words

    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(database))
    migrations.upgrade(engine)  # the tables the write in place keeps
    write = sqlite_db.writer(engine, autocheckpoint=False)
    splitter = index_words.Splitter()
    held: list[float] = []
    chars: list[int] = []
    for turn in ids:
        with engine.connect() as conn:
            row = conn.exec_driver_sql(_ROW, (turn,)).first()
            found = conn.exec_driver_sql(f"{_TEXT_CHARS} WHERE id = ?", (turn,)).first()
        if found is None or row is None or not row[1].strip():
            continue
        old = [row[0], row[1], row[2] or "", row[3] or ""]
        split = splitter.split(old, [old[0], _masked(row[1])[2], old[2], old[3]])
        if split is None:
            continue
        began = time.perf_counter()
        with write.begin() as conn:
            with in_place.by_hand(conn):
                conn.exec_driver_sql(_MASK, (_masked(row[1])[2], turn))
            in_place.write_index(conn, {turn: split})
        held.append((time.perf_counter() - began) * 1000)
        chars.append(int(found[0]))
    with write.begin() as conn:
        try:
            conn.exec_driver_sql(fts.integrity_check_statement())
            sound = True
        except DatabaseError:
            sound = False
    engine.dispose()
    return held, chars, sound


def masking_ms(database: Path, ids: list[int], way: str) -> tuple[list[float], int, bool]:
    """Each turn's masking transaction in ms, the median turn's characters, and whether the
    index passed FTS5's integrity-check after."""
    driver = sqlite_driver()
    conn: sqlite3.Connection = driver.connect(str(database), isolation_level=None)
    # As the re-scan's writer: its commits never copy the WAL back (the upkeep does, apart).
    set_up(conn, busy_timeout_ms=5_000, wal_autocheckpoint_pages=0)
    conn.execute(fts.secure_delete_statement(on=way != WAYS[0]))
    held: list[float] = []
    chars: list[int] = []
    for turn in ids:
        found = conn.execute(f"{_TEXT_CHARS} WHERE id = ?", (turn,)).fetchone()
        row = conn.execute(_ROW, (turn,)).fetchone()
        if found is None or row is None or not row[1].strip():
            continue
        began = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        _mask_whole(conn, turn, row)
        conn.execute("COMMIT")
        held.append((time.perf_counter() - began) * 1000)
        chars.append(int(found[0]))
    try:
        conn.execute(fts.integrity_check_statement())
        sound = True
    except driver.DatabaseError:
        sound = False
    conn.close()
    return held, sorted(chars)[len(chars) // 2] if chars else 0, sound


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
        for n, way in enumerate(WAYS):
            copy = Path(scratch) / f"way-{n}.db"
            shutil.copy(args.db, copy)
            if way == WAYS[2]:
                held, chars, sound = in_place_ms(copy, ids)
                median_chars = sorted(chars)[len(chars) // 2] if chars else 0
            else:
                held, median_chars, sound = masking_ms(copy, ids, way)
            for p in (50, 90, 99, 100):
                emitter.emit(
                    f"masking p{p}", way, round(percentile(held, p), 2), "ms", turns=len(held)
                )
            emitter.emit("median turn", way, median_chars, "chars")
            emitter.emit("integrity", way, int(sound), "ok")
            copy.unlink()
    if log is not None:
        log.close()


if __name__ == "__main__":
    main()

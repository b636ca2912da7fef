"""What masking one stored turn holds the write lock for: FTS5's secure-delete off, on, and given
only the secret's words.

A re-scan that masks a turn rewrites its text, so FTS5 deletes the turn's old entry and adds the
new one. The shipped re-scan writes with secure-delete off and owes a whole-index rewrite for
after (history/store/sqlite/maintenance.py, `_masking`), whose steps at 1M hold the lock longer
than a re-scan step may. With secure-delete on, the old entry's words would leave the index in
the masking transaction itself and no rewrite would be owed, at the price of a page rewritten for
each word of the turn. The third way (`secret only`, not shipped) asks secure-delete to remove
only the secret's words (FTS5's `delete` removes the words it is given), leaves delete markers
for the turn's other words, inserts the masked row, and puts FTS5's row count back (each
`delete` counted the row once). It leaves the turn's other words in old segments, shadowed: a
later forget of that turn would still owe the whole-index scrub. Each way runs on its own copy
of an index built by `bench.importer`, and the copy's `integrity-check` is reported after.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.measure import Emitter, percentile
from history.store.sqlite import fts
from history.store.sqlite.connection import INDEX_TEXT_FUNCTION, set_up, sqlite_driver

_TEXT_CHARS = "SELECT length(asked) + length(answered) + length(coalesce(work, '')) FROM turns"
_ROW = "SELECT asked, answered, files, work, project_tag FROM turns WHERE id = ?"
_MASK = "UPDATE turns SET answered = ? WHERE id = ?"
_COLUMNS = ", ".join(fts.INDEXED_COLUMNS)
_TEXT = f"{INDEX_TEXT_FUNCTION}(?)"
_VALUES = f"{_TEXT}, {_TEXT}, {_TEXT}, {_TEXT}, ?"
_FTS = fts.FTS_TABLE
_DELETE = f"INSERT INTO {_FTS}({_FTS}, rowid, {_COLUMNS}) VALUES ('delete', ?, {_VALUES})"
_INSERT = f"INSERT INTO {_FTS}(rowid, {_COLUMNS}) VALUES (?, {_VALUES})"
# FTS5's averages record: varints, the row count first, then each column's token total.
_AVERAGES = f"SELECT block FROM {_FTS}_data WHERE id = 1"
_SET_AVERAGES = f"UPDATE {_FTS}_data SET block = ? WHERE id = 1"
WAYS = ("secure-delete off (shipped)", "secure-delete on", "secret only")


def _masked(answered: str) -> tuple[str, str, str]:
    """The answer without its last word, that word (the secret), the answer masked."""
    head, _, secret = answered.rstrip().rpartition(" ")
    return head, secret, f"{head} [masked]" if head else "[masked]"


def _mask_whole(conn: sqlite3.Connection, turn: int, row: Any) -> None:
    conn.execute(_MASK, (_masked(row[1])[2], turn))  # the turns_au trigger reindexes the row


def _mask_secret_only(conn: sqlite3.Connection, turn: int, row: Any) -> None:
    asked, answered, files, work, tag = row
    head, secret, masked = _masked(answered)
    conn.execute(_DELETE, (turn, "", secret, "", "", ""))  # secure-delete on: only these words
    conn.execute(fts.secure_delete_statement(on=False))
    conn.execute(_DELETE, (turn, asked, head, files, work, tag))  # markers for the other words
    conn.execute(_MASK, (masked, turn))  # this copy has no turns_au trigger
    conn.execute(_INSERT, (turn, asked, masked, files, work, tag))
    conn.execute("SAVEPOINT averages")  # FTS5 writes the totals it holds
    totals = fts.varints(conn.execute(_AVERAGES).fetchone()[0])
    totals[0] += 1
    conn.execute(_SET_AVERAGES, (b"".join(fts.varint(total) for total in totals),))
    conn.execute("RELEASE averages")
    conn.execute(fts.secure_delete_statement(on=True))


def masking_ms(database: Path, ids: list[int], way: str) -> tuple[list[float], int, bool]:
    """Each turn's masking transaction in ms, the median turn's characters, and whether the
    index passed FTS5's integrity-check after."""
    driver = sqlite_driver()
    conn: sqlite3.Connection = driver.connect(str(database), isolation_level=None)
    # As the re-scan's writer: its commits never copy the WAL back (the upkeep does, apart).
    set_up(conn, busy_timeout_ms=5_000, wal_autocheckpoint_pages=0)
    conn.execute(fts.secure_delete_statement(on=way != WAYS[0]))
    mask: Callable[[sqlite3.Connection, int, Any], None] = _mask_whole
    if way == WAYS[2]:
        conn.execute("DROP TRIGGER turns_au")
        mask = _mask_secret_only
    held: list[float] = []
    chars: list[int] = []
    for turn in ids:
        found = conn.execute(f"{_TEXT_CHARS} WHERE id = ?", (turn,)).fetchone()
        row = conn.execute(_ROW, (turn,)).fetchone()
        if found is None or row is None or not row[1].strip():
            continue
        began = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        mask(conn, turn, row)
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

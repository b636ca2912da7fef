"""`recall doctor --recover`: copy what a damaged history file still lets be read into a new one.

The turns and the tombstones of forgotten conversations are read through the damaged file's own
b-trees, a range of row ids at a time. A range that runs into a damaged page is halved until
the readable rows around the damage are copied and only the unreadable ids are left behind;
everything else (the full-text index, the summaries) is rebuilt by the new file's triggers. The
damaged file is only read.

The sqlite3 shell's `.recover` also digs rows out of pages no b-tree reaches any more; it needs a
shell built with the `sqlite_dbpage` table, which many systems' `sqlite3` are not (README).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine

from history.store.sqlite import engine as sqlite_db
from history.store.sqlite.damaged import MARK, SIDECARS, damaged_name, move_aside

# Tables copied, and who fills the rest: turns feed the full-text index and the summaries.
COPIED_TABLES = ("turns", "forgotten_sessions")
BATCH_ROWS = 500
LARGEST_ROWID = 2**63 - 1
# Failed reads allowed before the rest of a damaged stretch is given up as unreadable.
FAILED_READS_ALLOWED = 100_000


@dataclass
class Salvage:
    copied: dict[str, int]
    # Stretches of row ids (first, last) that could not be read, per table.
    unreadable: dict[str, list[tuple[int, int]]]

    @property
    def damaged(self) -> bool:
        return any(self.unreadable.values())


def salvage(damaged: Path, target: Engine) -> Salvage:
    """Copy the readable turns and tombstones of `damaged` into the empty, migrated `target`."""
    driver = sqlite_db.sqlite_driver()
    source = driver.connect(f"file:{quote(str(damaged))}?mode=ro", uri=True, isolation_level=None)
    copied: dict[str, int] = {}
    unreadable: dict[str, list[tuple[int, int]]] = {}
    raw = target.raw_connection()
    try:
        destination = raw.driver_connection
        assert destination is not None
        owed = _owed_work(source, driver.DatabaseError)
        for table in COPIED_TABLES:
            columns = _shared_columns(source, destination, table, driver.DatabaseError)
            copied[table], unreadable[table] = _copy_table(
                source, destination, table, columns, driver.DatabaseError, owed
            )
        destination.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        raw.close()
        source.close()
    return Salvage(copied, unreadable)


def _owed_work(source: Any, broken: type[Exception]) -> set[tuple[str, str | None]]:
    """The conversations (and project; None: all of them) a forget left to delete in batches:
    their turns are not brought into the new file. Unreadable: none."""
    try:
        return set(source.execute("SELECT session_id, project FROM forget_work").fetchall())
    except broken:
        return set()


def _columns(destination: Any, table: str) -> list[str]:
    """The stored columns (a generated column is left to be computed again)."""
    rows = destination.execute(f"SELECT name, hidden FROM pragma_table_xinfo('{table}')")
    return [name for name, hidden in rows if hidden == 0]


def _shared_columns(
    source: Any, destination: Any, table: str, broken: type[Exception]
) -> list[str]:
    """The new file's columns that the damaged one has too: a file from before a revision that
    added a column (0016's `work`) gives its rows, which take the column's default."""
    wanted = _columns(destination, table)
    try:
        held = set(_columns(source, table))
    except broken:
        return wanted
    return [column for column in wanted if column in held] if held else wanted


def _copy_table(
    source: Any,
    destination: Any,
    table: str,
    columns: list[str],
    broken: type[Exception],
    owed: set[tuple[str, str | None]],
) -> tuple[int, list[tuple[int, int]]]:
    listed = ", ".join(columns)
    read = f"SELECT rowid, {listed} FROM {table} WHERE rowid BETWEEN ? AND ? ORDER BY rowid LIMIT ?"
    write = (
        f"INSERT INTO {table} ({listed}) VALUES ({', '.join('?' * len(columns))}) "
        "ON CONFLICT DO NOTHING"
    )
    copied, failures = 0, 0
    unreadable: list[tuple[int, int]] = []
    stretches = [(1, LARGEST_ROWID)]  # still to copy; the lowest last, so popped first
    while stretches:
        first, last = stretches.pop()
        try:
            rows = source.execute(read, (first, last, BATCH_ROWS)).fetchall()
        except broken:
            failures += 1
            if first == last or failures > FAILED_READS_ALLOWED:
                unreadable.append((first, last))
            else:
                middle = (first + last) // 2
                stretches += [(middle + 1, last), (first, middle)]
            continue
        kept = [row[1:] for row in rows if not (owed and _forgotten(row[1:], columns, owed))]
        if kept:
            destination.execute("BEGIN IMMEDIATE")
            destination.executemany(write, kept)
            destination.execute("COMMIT")
            copied += len(kept)
        if len(rows) == BATCH_ROWS and rows[-1][0] < last:
            stretches.append((rows[-1][0] + 1, last))
    return copied, _merged(unreadable)


def _forgotten(row: tuple[Any, ...], columns: list[str], owed: set[tuple[str, str | None]]) -> bool:
    if "session_id" not in columns or "project" not in columns:
        return False
    session = row[columns.index("session_id")]
    return (session, None) in owed or (session, row[columns.index("project")]) in owed


def _merged(stretches: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Neighbouring unreadable ids as one stretch."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(stretches):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


def recover_in_place(database: Path) -> tuple[Salvage, Path]:
    """Salvage `database` into a new file that then takes its place; the damaged file is kept
    as a damaged copy (its path is returned). No other process may be using the file."""
    from history.store.sqlite.opening import open_database

    target = damaged_name(database)
    target = target.with_name(target.name.replace(MARK, ".recovering-"))
    opened = open_database(sqlite_db.database_url(target), sqlite_db.BUSY_TIMEOUT_MS)
    try:
        salvaged = salvage(database, opened.engine)
    except BaseException:
        opened.engine.dispose()
        for suffix in ("", *SIDECARS):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        raise
    opened.engine.dispose()
    kept = move_aside(database, "was recovered into a new file", logging.INFO)
    for suffix in ("", *SIDECARS):
        part = Path(f"{target}{suffix}")
        if part.exists():
            part.rename(Path(f"{database}{suffix}"))
    return salvaged, kept

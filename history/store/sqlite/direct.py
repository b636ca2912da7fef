"""Turns written straight through the SQLite driver: what `recall hook` does with a file that
is already current, without SQLAlchemy (whose import was ~165 ms of each hook's CPU).

It writes what the repository's `upsert_many` writes (repository.py, rows.py): each turn's row
by the same upsert (never INSERT OR REPLACE), only the turns whose stored values differ, the
insert trigger's summary work stepped aside and done set by set after (summaries.py), inside one
BEGIN IMMEDIATE announced to a forget working in steps (writers.py); the triggers keep the
full-text index, the word counts and the summaries in step as they do for every write. Turns of
forgotten conversations and turns past their retention are left out, as `record_many` leaves
them out.

Only a file that needs nothing else is written here: at the head revision, no forget's work or
scrub owed, its turns scanned under the current secret rules, FTS5's secure-delete on where it
can be. Anything else, or any error of the driver, answers None and the caller takes the whole
path (HistoryIndex), which migrates, moves a damaged file aside, finishes owed work and says why
a file cannot be written. (Turns a forget spooled are moved in by the upkeep of a longer
process, as after a hook on the whole path, which starts no upkeep that outlives it.)
tests/test_direct_record.py holds the two paths to the same rows.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.domain import TURN_FIELDS, NewTurn, UpsertCounts
from history.retention import EVERY, RetentionPolicy
from history.rules_version import RESERVED_PREFIX, RULES_VERSION, VERSION_KEY
from history.store.head import SCHEMA_HEAD
from history.store.row_values import row_values
from history.store.sqlite import summaries
from history.store.sqlite.connection import (
    BUSY_TIMEOUT_MS,
    FTS_TABLE,
    READER_CACHE_KIB,
    WRITER_CACHE_KIB,
    set_up,
    sqlite_driver,
)
from history.store.sqlite.forgetting import writers

log = logging.getLogger(__name__)

_COLUMNS = ", ".join(TURN_FIELDS)
_UPSERT = (
    f"INSERT INTO turns ({_COLUMNS}) VALUES ({', '.join('?' for _ in TURN_FIELDS)}) "
    "ON CONFLICT (turn_id) DO UPDATE SET "
    + ", ".join(f"{name} = excluded.{name}" for name in TURN_FIELDS if name != "turn_id")
)
_CHUNK = 500  # ids bound in one statement, as rows.chunks


@dataclass(frozen=True)
class Written:
    counts: UpsertCounts
    left_out: int  # turns of forgotten conversations, or past their retention


def record_many(
    database: Path, turns: Sequence[NewTurn], busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> Written | None:
    """Write the prepared `turns` (history/prepare.py) into the SQLite file `database`; None,
    with nothing written, when the file needs the whole path."""
    driver = sqlite_driver()
    try:
        conn = driver.connect(
            str(database), timeout=busy_timeout_ms / 1000, check_same_thread=False
        )
    except driver.Error:
        return None
    try:
        bulk, _ranked = set_up(conn, busy_timeout_ms)
        return _write(conn, database, turns, bulk)
    except driver.Error as exc:
        log.debug("writing directly gave way to the whole path: %s", type(exc).__name__)
        return None
    finally:
        conn.close()


def _write(
    conn: sqlite3.Connection, database: Path, turns: Sequence[NewTurn], bulk: summaries.BulkFlag
) -> Written | None:
    announced = writers.announce(database)  # a forget in steps lets it in
    try:
        conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        conn.execute("BEGIN IMMEDIATE")
        try:
            written = _upsert(conn, turns, bulk) if current(conn) else None
            conn.execute("COMMIT" if written is not None else "ROLLBACK")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        return written
    finally:
        writers.done(announced)
        conn.execute(f"PRAGMA cache_size = -{READER_CACHE_KIB}")


def _one(conn: sqlite3.Connection, sql: str, *values: Any) -> Any:
    row = conn.execute(sql, values).fetchone()
    return None if row is None else row[0]


def current(conn: sqlite3.Connection) -> bool:
    """Whether the file needs nothing but the write (see the module's note); a search through
    the driver asks it too (direct_search.py)."""
    if _one(conn, "SELECT version_num FROM alembic_version") != SCHEMA_HEAD:
        return False
    if _one(conn, "SELECT 1 FROM forget_work LIMIT 1") or _one(
        conn, "SELECT 1 FROM owed_scrub LIMIT 1"
    ):
        return False
    rules = _one(conn, "SELECT keep_days FROM retention_settings WHERE project = ?", VERSION_KEY)
    if rules is None or int(rules) < RULES_VERSION:
        return False  # a re-scan is due (or a store not yet settled): the upkeep's to start
    indexed = _one(conn, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", FTS_TABLE)
    if indexed and _secure_delete_possible(conn):
        on = _one(conn, f"SELECT v FROM {FTS_TABLE}_config WHERE k = 'secure-delete'")
        return bool(on)
    return True


def _secure_delete_possible(conn: sqlite3.Connection) -> bool:
    version = str(_one(conn, "SELECT sqlite_version()"))
    return tuple(int(part) for part in version.split(".")[:2]) >= (3, 42)


def _upsert(
    conn: sqlite3.Connection, turns: Sequence[NewTurn], bulk: summaries.BulkFlag
) -> Written:
    skipped = _forgotten(conn, list(dict.fromkeys(turn.session_id for turn in turns)))
    policy, now = retention(conn), datetime.now(UTC)
    kept = [
        turn
        for turn in turns
        if turn.session_id not in skipped and not policy.expired(turn.project, turn.asked_at, now)
    ]
    rows = {turn.turn_id: _stored_form(row_values(turn)) for turn in kept}
    stored: dict[str, tuple[Any, ...]] = {}
    ids = list(rows)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        found = conn.execute(f"SELECT {_COLUMNS} FROM turns WHERE turn_id IN ({marks})", chunk)
        stored.update({row[0]: tuple(row) for row in found})
    changed = [values for turn_id, values in rows.items() if stored.get(turn_id) != values]
    before = _one(conn, summaries.LAST_ID)
    bulk.on = True
    try:
        if changed:
            conn.executemany(_UPSERT, changed)
    finally:
        bulk.on = False
    new = len(rows.keys() - stored.keys())
    if new:
        for statement in summaries.bulk_added_statements():
            conn.execute(statement, {"before": before})
    counts = UpsertCounts(new=new, updated=len(changed) - new, unchanged=len(rows) - len(changed))
    return Written(counts, len(turns) - len(kept))


def _stored_form(values: dict[str, Any]) -> tuple[Any, ...]:
    """A row's values as SQLite holds them, in TURN_FIELDS' order: the time as naive UTC text
    (models.UtcDateTime, as SQLAlchemy's SQLite DATETIME writes it), the flag as 0 or 1."""
    asked_at: datetime = values["asked_at"]
    values["asked_at"] = _utc_text(asked_at)
    values["tainted"] = int(bool(values["tainted"]))
    return tuple(values[name] for name in TURN_FIELDS)


def _utc_text(when: datetime) -> str:
    if when.tzinfo is None:
        raise ValueError("asked_at must be timezone-aware")
    return when.astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _forgotten(conn: sqlite3.Connection, sessions: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(sessions), _CHUNK):
        chunk = sessions[start : start + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        rows = conn.execute(
            f"SELECT session_id FROM forgotten_sessions WHERE session_id IN ({marks})", chunk
        )
        found.update(str(row[0]) for row in rows)
    return found


def retention(conn: sqlite3.Connection) -> RetentionPolicy:
    """The settings and cutoffs, as store/retention.py's `load` reads them."""
    keep = {
        (None if key == EVERY else key): int(days)
        for key, days in conn.execute("SELECT project, keep_days FROM retention_settings")
        if not str(key).startswith(RESERVED_PREFIX)
    }
    cutoffs = {
        (None if key == EVERY else key): _utc(str(when))
        for key, when in conn.execute("SELECT project, asked_before FROM retention_cutoffs")
    }
    return RetentionPolicy(keep, cutoffs)

"""Live turns that arrive while a forget holds the write lock wait in a spool beside the database.

A large forget works in steps that each hold the write lock, and FTS5 ends an index merge step
only between two words: a step that reaches a word in nearly every turn rewrites that word's
whole posting list at once (hundreds of ms at a million turns). So a live `record` that cannot
have the lock within SPOOL_AFTER_MS while a forget is owed writes its turn, already prepared
(redacted, capped, its ids masked), to `<name>-spool`, a small SQLite file of its own, and is
done. Whoever holds the database's write lock next moves the spooled turns in, in that
transaction: the forget between its steps and in its first and last transactions, the upkeep of
any process, `recall doctor`. Search sees a spooled turn once it has moved (within a step).

Ordering with forgetting: the turns spooled before a forget's first transaction move in within
it and are forgotten with the rest; the spool's lock is held from the move until the database's
commit, and a record looks whether a forget is owed only while it holds that lock, so no turn is
spooled after the last move of a forget that then settles (nothing would move it).

Bytes: the spool frees rows with `secure_delete`, and a forget's first and last moves copy its
log back and cut it to zero, so once a forget is done no turn that left the spool has text in
its files. Durability is the database's own (WAL, `synchronous = NORMAL`: a process that dies
loses nothing, and a spooling record waits for no disk sync). A move is repeated whole if a
process dies between the two commits; writing the same turn again changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from history.domain import TURN_FIELDS, NewTurn, turn_fields_of_type
from history.store.rows import chunks
from history.store.sqlite.engine import sqlite_driver

SUFFIX = "-spool"
# How long a live record waits for the write lock, while a forget is owed, before it spools.
SPOOL_AFTER_MS = 40
# How long a spooling record or a move waits for the spool's own lock (each holds it for a
# moment: one insert, or the move's few rows and the database's commit).
SPOOL_BUSY_MS = 2_000

_CREATE = "CREATE TABLE IF NOT EXISTS spooled (id INTEGER PRIMARY KEY, turn TEXT NOT NULL)"

# Writes the moved turns into the database's transaction (an upsert of changed rows).
Writer = Callable[[Connection, list[NewTurn]], None]


def spool_file(database: Path) -> Path:
    return database.with_name(database.name + SUFFIX)


class Spool:
    def __init__(self, database: Path | None, write: Writer) -> None:
        self.path = spool_file(database) if database is not None else None
        self._write = write
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one connection per process, used a transaction at a time

    def add(self, turn: NewTurn, forgetting: Callable[[], bool]) -> bool:
        """Spool the turn if `forgetting()` (asked under the spool's lock); False otherwise."""
        if self.path is None or not forgetting():  # the usual case: no spool file made
            return False
        with _as_sqlalchemy_errors(), self._locked() as conn:
            if not forgetting():
                return False
            conn.execute("INSERT INTO spooled (turn) VALUES (?)", (_encoded(turn),))
            return True

    def count(self) -> int:
        """How many turns wait in the spool."""
        if self.path is None or not self.path.exists():
            return 0
        with self._lock:
            try:
                conn = self._connection()
                return int(conn.execute("SELECT count(*) FROM spooled").fetchone()[0])
            except sqlite_driver().Error:  # a spool this process cannot open (read-only)
                return 0

    @contextmanager
    def moving(self, scrub: bool = False) -> Iterator[Callable[[Connection], int]]:
        """`move(conn)` writes every spooled turn into `conn`'s transaction (which holds the
        database's write lock) and returns how many; the spool's lock is held from then until
        this block ends, so open the database's transaction inside it, and the moved turns
        leave the spool only once that transaction has committed. With `scrub` (a forget's
        first and last transactions), the spool's log is then copied back and cut to zero: the
        text of every turn that left the spool leaves its bytes."""
        held: list[int] = []
        with _as_sqlalchemy_errors(), self._lock:
            conn: sqlite3.Connection | None = None

            def move(target: Connection) -> int:
                nonlocal conn
                if self.path is None:
                    return 0
                existed = self.path.exists()
                try:
                    opened = self._connection()
                except (OSError, sqlite_driver().Error):
                    if existed:
                        raise
                    return 0  # where no spool can be made, no turn was spooled either
                opened.execute("BEGIN IMMEDIATE")
                conn = opened
                found = conn.execute("SELECT id, turn FROM spooled ORDER BY id").fetchall()
                if found:
                    self._write(target, [_decoded(turn) for _, turn in found])
                held.extend(row_id for row_id, _ in found)
                return len(found)

            try:
                yield move
            except BaseException:
                if conn is not None:
                    conn.execute("ROLLBACK")
                raise
            if conn is not None:
                try:
                    for chunk in chunks(held):
                        marks = ", ".join("?" * len(chunk))
                        conn.execute(f"DELETE FROM spooled WHERE id IN ({marks})", chunk)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                if scrub:  # moved turns' text is in the log's older frames
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            assert self.path is not None
            if not self.path.exists():
                self.path.touch(mode=0o600)
            conn = sqlite_driver().connect(
                str(self.path),
                isolation_level=None,
                check_same_thread=False,
                timeout=SPOOL_BUSY_MS / 1000,
            )
            try:
                # Only a forget's first and last transactions copy the log back (`moving`): a
                # spooling record never pays for a checkpoint.
                pragmas = ("journal_mode = WAL", "synchronous = NORMAL", "secure_delete = ON")
                for pragma in (*pragmas, "wal_autocheckpoint = 0"):
                    conn.execute(f"PRAGMA {pragma}")
                conn.execute(_CREATE)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn


@contextmanager
def _as_sqlalchemy_errors() -> Iterator[None]:
    """The spool's errors as the database's are raised (a full disk, a read-only folder), so
    whoever handles those handles these."""
    driver = sqlite_driver()
    try:
        yield
    except driver.Error as exc:
        raise DBAPIError.instance("(the spool)", None, exc, driver.Error) from exc


# A spooled turn is a JSON object of its fields: lists of names as arrays, times in ISO 8601.
_NAME_LISTS = turn_fields_of_type(tuple[str, ...])
_TIMES = turn_fields_of_type(datetime)


def _encoded(turn: NewTurn) -> str:
    fields = {name: getattr(turn, name) for name in TURN_FIELDS}
    return json.dumps(fields, ensure_ascii=False, default=datetime.isoformat)


def _decoded(stored: str) -> NewTurn:
    spooled = json.loads(stored)
    # A field added since the turn was spooled is left out: it takes its default.
    fields = {name: spooled[name] for name in TURN_FIELDS if name in spooled}
    for name in _NAME_LISTS:
        fields[name] = tuple(fields[name])
    for name in _TIMES:
        fields[name] = datetime.fromisoformat(fields[name])
    return NewTurn(**fields)

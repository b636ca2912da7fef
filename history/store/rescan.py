"""Stored text follows the secret rules: when the rules grow (history.rules_version.RULES_VERSION),
the turns stored before are re-scanned under the new ones, in steps, on either SQL backend.

The database says which rules its turns were scanned under, in the settings table of migration
0017 (`retention_settings`): a row keyed VERSION_KEY holds the version (none: before any was
kept, every turn is re-scanned), and while a re-scan is under way a row keyed by `_through_key`
holds the last row id it reached, so that any process carries it on where another stopped. A
project's key is always an absolute path (history.projects), so neither key can be one.

A step reads a batch of turns without a lock and masks them; only the turns whose text changed
are written, under the write lock for about HOLD_SECONDS with the commit (what is left waits
for the next step, unread again), each only if it still holds what was read (a turn recorded
again meanwhile was masked by its own record). A step's writes are bounded by the text they
rewrite too, not only by the time they took: a full-text index writes a rewritten turn's words
twice (its old entry deleted, the new one added) at the commit, whose length grows with them
and cannot be cut short once begun. So a step rewrites at most MOST_CHARS characters, and no
more than the commit's cost per character measured so far lets fit in HOLD_SECONDS. The step
that masks owes the scrub a forget of as many turns would (history/store/owed.py), in the
backend's terms (its `masking`): the scrub then takes the old text out of the full-text index,
the freed pages and the log. A backend may write some turns in place instead (`InPlace`: on
SQLite the secret's words leave the full-text index in the step itself), owing only the scrub
of the pages and the log.

Ids, session ids and projects are not re-scanned: they key the turns and their conversations.
"""

from __future__ import annotations

import bisect
import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, Row, delete, func, select, update
from sqlalchemy.exc import DBAPIError

from history.domain import turn_fields_of_type
from history.limits import MAX_PATH_CHARS, MAX_TEXT_CHARS, MAX_WORK_CHARS
from history.rules_version import RULES_VERSION
from history.rules_version import THROUGH_PREFIX as _THROUGH_PREFIX
from history.rules_version import VERSION_KEY as VERSION_KEY
from history.store.models import RetentionSetting, Turn
from history.store.rows import names_json

# A step masks turns read for about SCAN_SECONDS (no lock held), then holds the write lock for
# about HOLD_SECONDS, its commit included (what it could not write in that time, the next step
# does).
SCAN_SECONDS, HOLD_SECONDS = 0.025, 0.035
FIRST_COMMIT_SECONDS = 0.01
# The characters of text a step rewrites at most (each rewritten turn counts all of its text:
# the index deletes and adds the whole turn): FTS5 holds a step's rewritten words in memory
# until the commit, but writes them out in the middle of a write once they pass its 1 MB
# (`hashsize`), ~20-30 ms more in that write; 128 Ki characters stay under it. And the commit's
# cost per character assumed before one was measured (a full-text index's, on a slow disk).
MOST_CHARS = 128 * 1024
SOME_CHARS = 4096  # a commit of less is its fixed cost, not its text's
FIRST_COMMIT_SECONDS_PER_CHAR = 5e-8
# Where the step's turns are written in one statement (SQLite), its cost per character
# rewritten before one was measured (the text is tokenized twice, old and new), and the turns
# one statement writes at most.
FIRST_WRITE_SECONDS_PER_CHAR = 2e-7
MOST_TURNS_A_STATEMENT = 400
FIRST_BATCH, LEAST_BATCH, MOST_BATCH = 100, 10, 5_000

_NAMES = tuple(sorted(turn_fields_of_type(tuple[str, ...])))
_TEXTS = {"asked": MAX_TEXT_CHARS, "answered": MAX_TEXT_CHARS, "work": MAX_WORK_CHARS}
_COLUMNS = (Turn.id, *(getattr(Turn, name) for name in (*_TEXTS, *_NAMES)))
READ = tuple(column.key for column in _COLUMNS[1:])  # what a step reads of a turn, and compares


def _through_key() -> str:
    """The key of the re-scan's progress under the current rules: another version's progress
    (a newer process stopped mid-way) says nothing of these rules."""
    return f"{_THROUGH_PREFIX} under {RULES_VERSION})"


def reserved(key: str) -> bool:
    """A row of the settings table that is this module's, not a retention setting."""
    return key == VERSION_KEY or key.startswith(_THROUGH_PREFIX)


@dataclass(frozen=True)
class Step:
    """What a step did: turns read and turns masked; `more` while turns are left to read."""

    scanned: int = 0
    masked: int = 0
    more: bool = False
    rewritten_chars: int = 0


def _state(conn: Connection) -> tuple[int, int] | None:
    """The rules version the stored turns follow (0: none kept) and the last row id re-scanned
    under the current rules; None when the table is missing (a file opened read-only before
    migration 0017, which nothing here could write)."""
    keys = (VERSION_KEY, _through_key())
    found = select(RetentionSetting.project, RetentionSetting.keep_days).where(
        RetentionSetting.project.in_(keys)
    )
    try:
        values = {key: int(value) for key, value in conn.execute(found)}
    except DBAPIError:
        conn.rollback()
        return None
    return values.get(VERSION_KEY, 0), values.get(_through_key(), 0)


def due(conn: Connection) -> bool:
    """Turns stored under older rules than this process's are left to re-scan."""
    state = _state(conn)
    return state is not None and state[0] < RULES_VERSION


def left(conn: Connection) -> int:
    """How many turns are left to re-scan under the current rules."""
    state = _state(conn)
    if state is None or state[0] >= RULES_VERSION:
        return 0
    counted = select(func.count()).select_from(Turn).where(Turn.id > state[1])
    return int(conn.execute(counted).scalar_one())


def _masked(row: Row[Any]) -> dict[str, str] | None:
    """The row's text fields the current rules mask differently; None when none."""
    from history.redaction import redact  # only a process that re-scans loads the rules

    changed: dict[str, str] = {}
    for name, limit in _TEXTS.items():
        stored = getattr(row, name)
        clean = redact(stored)[:limit]
        if clean != stored:
            changed[name] = clean
    for name in _NAMES:
        stored = getattr(row, name)
        names = json.loads(stored) if stored else []
        clean_names = [redact(str(item))[:MAX_PATH_CHARS] for item in names]
        if clean_names != names:
            kept = [item for item in dict.fromkeys(clean_names) if item]
            changed[name] = names_json(tuple(kept))
    return changed or None


Change = tuple[Row[Any], dict[str, str]]


def rewritten_chars(row: Row[Any]) -> int:
    """The text a rewrite of the turn writes again: all of it, old and new (a full-text index
    deletes the turn's entry and adds the new one), about twice what it holds."""
    return 2 * sum(len(getattr(row, name) or "") for name in (*_TEXTS, *_NAMES))


class InPlace(Protocol):
    """A backend's way to write some masked turns that owes no scrub of the whole full-text
    index (SQLite's, history/store/sqlite/in_place.py): `prepare` reads the changes
    before the lock is taken, `fitting` says how many of the first changes one step may take
    (its own work grows with other things than their text), `write` writes those it prepared
    in the caller's transaction and says how many it masked and which changes it left to the
    usual write."""

    def prepare(self, changes: list[Change]) -> dict[int, object]: ...

    def fitting(
        self, conn: Connection, changes: list[Change], prepared: dict[int, object]
    ) -> int: ...

    def write(
        self, conn: Connection, changes: list[Change], prepared: dict[int, object]
    ) -> tuple[int, list[Change]]: ...


@dataclass(frozen=True)
class _Read:
    """Turns read and masked past row id `after` (`ids`, in order) whose masked text is not all
    written yet: the next step writes the rest without reading and masking them again
    (`prepared`: what the backend's in-place write read of them)."""

    after: int
    ids: list[int]
    changes: list[Change]
    prepared: dict[int, object]


def groups(changes: list[Change]) -> list[list[Change]]:
    """The changes by the fields they set, in the order first met."""
    by_fields: dict[tuple[str, ...], list[Change]] = {}
    for change in changes:
        by_fields.setdefault(tuple(sorted(change[1])), []).append(change)
    return list(by_fields.values())


def update_many(group: list[Change], returning: bool = False) -> tuple[str, tuple[Any, ...]]:
    """One UPDATE of SQLite's writing the group's masked fields, each turn only if it still
    holds what was read (a turn recorded again meanwhile was masked by its own record);
    `returning`: it gives back the ids of the turns it wrote."""
    setting = sorted(group[0][1])
    kept = [column.name for column in _COLUMNS[1:]]
    names = ["id", *(f"new_{name}" for name in setting), *(f"old_{name}" for name in kept)]
    marks = "(" + ", ".join("?" * len(names)) + ")"
    sql = (
        f"WITH masked({', '.join(names)}) AS (VALUES {', '.join([marks] * len(group))}) "
        f"UPDATE turns SET {', '.join(f'{name} = masked.new_{name}' for name in setting)} "
        "FROM masked WHERE turns.id = masked.id"
        + "".join(f" AND turns.{name} IS masked.old_{name}" for name in kept)
        + (" RETURNING turns.id" if returning else "")
    )
    values: list[Any] = []
    for row, new in group:
        values += [row.id, *(new[name] for name in setting), *(getattr(row, n) for n in kept)]
    return sql, tuple(values)


class Rescan:
    """The re-scan of one store. `masking(conn, count)` is the backend's part around writing
    `count` masked turns, in the caller's transaction: it owes the scrub a forget of as many
    turns owes there, and may make the writes cheaper meanwhile. `insert` is the dialect's."""

    def __init__(
        self,
        engine: Engine,
        writer: Engine,
        insert: Callable[[Any], Any],
        masking: Callable[[Connection, int], AbstractContextManager[None]],
        one_statement: bool = False,
        in_place: InPlace | None = None,
    ) -> None:
        """`one_statement`: write a step's masked turns in one UPDATE (SQLite): FTS5 writes the
        words pending in its memory out as a segment of their own at each statement's start, so
        a statement a turn leaves a segment a turn, and once a level holds `crisismerge` (256)
        of them FTS5 merges them all inside the write that crosses it (3,700 pages, 45-100 ms
        at 100k). The step's turns are then chosen before the write, by the text they rewrite
        at the cost a character measured, not by the clock between writes."""
        self._one_statement = one_statement
        self._in_place = in_place
        self._write_per_char = FIRST_WRITE_SECONDS_PER_CHAR
        self._engine = engine
        self._writer = writer
        self._insert = insert
        self._masking = masking
        self._batch = FIRST_BATCH
        self._read: _Read | None = None
        self._commit_seconds = FIRST_COMMIT_SECONDS
        self._commit_per_char = FIRST_COMMIT_SECONDS_PER_CHAR
        self._settled = False  # seen at this process's version or newer: never due again here

    def due(self) -> bool:
        """Turns are left to re-scan. A store that holds no turn yet follows the current rules:
        it says so at once (a file made now, then filled by an import, is never re-scanned)."""
        if self._settled:
            return False
        with self._engine.connect() as conn:
            found = due(conn)
            empty = found and conn.execute(select(Turn.id).limit(1)).first() is None
        if empty:
            try:
                with self._writer.begin() as conn:
                    self._finish(conn)
            except DBAPIError:
                return True  # another writer holds the lock: a step says so later
            found = False
        self._settled = not found
        return found

    def pending(self) -> bool:
        """Some stored turns may still hold what the current rules mask (a read: a process
        that may only read asks it too)."""
        if self._settled:
            return False
        with self._engine.connect() as conn:
            found = due(conn)
        self._settled = not found
        return found

    def left(self) -> int:
        with self._engine.connect() as conn:
            return left(conn)

    def step(self, writes: AbstractContextManager[object]) -> Step:
        """Re-scan the next batch of turns (`writes`: this process's writers' lock, held with
        the database's while the masked turns are written)."""
        with self._engine.connect() as conn:
            state = _state(conn)
            if state is None or state[0] >= RULES_VERSION:
                self._settled = True
                return Step()
            read = self._read if self._read and self._read.after == state[1] else None
            if read is None:
                read = self._read_next(conn, state[1])
        with writes:
            held = time.monotonic()
            with self._writer.begin() as conn:
                if not read.ids:
                    self._finish(conn)
                    self._settled = True
                    return Step()
                until = held + HOLD_SECONDS - self._commit_seconds
                write = self._write_at_once if self._one_statement else self._write
                reached, masked, chars, rest = write(conn, read, until)
                self._keep(conn, _through_key(), reached)
                committing = time.monotonic()
            self._learn_commit(time.monotonic() - committing, chars)
        left_ids = read.ids[bisect.bisect_right(read.ids, reached) :]
        self._read = _Read(reached, left_ids, rest, read.prepared) if rest else None
        scanned = len(read.ids) - len(left_ids)
        return Step(scanned=scanned, masked=masked, more=True, rewritten_chars=chars)

    def _learn_commit(self, seconds: float, chars: int) -> None:
        """The next steps leave room for a commit's fixed cost as long as the last commit of
        little text, and for its text's at the highest cost a character measured (FTS5 writes
        its segment then), forgetting a long one slowly: every step teaches it, one of little
        text as if it rewrote SOME_CHARS (learnt only from long steps, one slow commit left every
        later step at one turn, none rewriting enough to unlearn it: at 10% of 1M turns masked,
        99,115 steps for 100,000 turns)."""
        if chars < SOME_CHARS:
            self._commit_seconds = max(0.8 * self._commit_seconds, min(seconds, HOLD_SECONDS / 2))
        if chars:
            per_char = max(0.0, seconds - self._commit_seconds) / max(chars, SOME_CHARS)
            self._commit_per_char = max(0.8 * self._commit_per_char, per_char)

    def paced_step(self, writes: AbstractContextManager[object]) -> Step:
        """A step as the upkeep takes it: then as long idle, so that a process serving searches
        (and holding Python's one lock while it masks) spends at most half its time on it."""
        began = time.monotonic()
        done = self.step(writes)
        if done.more:
            time.sleep(time.monotonic() - began)
        return done

    def _read_next(self, conn: Connection, after: int) -> _Read:
        found = conn.execute(
            select(*_COLUMNS).where(Turn.id > after).order_by(Turn.id).limit(self._batch)
        ).all()
        began = time.monotonic()
        changes = [(row, values) for row in found if (values := _masked(row)) is not None]
        prepared = self._in_place.prepare(changes) if self._in_place and changes else {}
        self._adapt(time.monotonic() - began)
        return _Read(after, [row.id for row in found], changes, prepared)

    def _write(
        self, conn: Connection, read: _Read, until: float
    ) -> tuple[int, int, int, list[Change]]:
        """Write the masked turns until `until` (at least one), leaving room for the commit of
        the text rewritten, and at most MOST_CHARS of it: the row id reached, how many were
        masked (a turn rewritten since it was read is left as its record made it), the
        characters rewritten, and the changes left for the next step."""
        last, changes = read.ids[-1], read.changes
        if not changes:
            return last, 0, 0, []
        masked, longest, chars = 0, 0.0, 0
        with self._masking(conn, len(changes)):
            for done, (row, values) in enumerate(changes):
                weight = rewritten_chars(row)
                # The next write may take as long as the longest so far, and its text adds to
                # the commit.
                if done and (
                    chars + weight > MOST_CHARS
                    or time.monotonic() + longest + (chars + weight) * self._commit_per_char > until
                ):
                    return row.id - 1, masked, chars, changes[done:]
                unchanged = [column == getattr(row, column.key) for column in _COLUMNS[1:]]
                statement = update(Turn).where(Turn.id == row.id, *unchanged).values(**values)
                wrote = time.monotonic()
                masked += conn.execute(statement).rowcount
                longest = max(longest, time.monotonic() - wrote)
                chars += weight
        return last, masked, chars, []

    def _write_at_once(
        self, conn: Connection, read: _Read, until: float
    ) -> tuple[int, int, int, list[Change]]:
        """`_write` in one statement (a few when turns differ in the fields they mask): as many
        turns as their text lets fit before `until` at the costs a character measured so far,
        at most MOST_CHARS and MOST_TURNS_A_STATEMENT, at least one. Those the backend prepared
        go in place first; the rest owe what `masking` owes."""
        last, changes = read.ids[-1], read.changes
        if not changes:
            return last, 0, 0, []
        per_char = self._write_per_char + self._commit_per_char
        budget = min(float(MOST_CHARS), max(0.0, until - time.monotonic()) / per_char)
        taken, chars = 0, 0
        for row, _ in changes[:MOST_TURNS_A_STATEMENT]:
            weight = rewritten_chars(row)
            if taken and chars + weight > budget:
                break
            taken, chars = taken + 1, chars + weight
        if self._in_place is not None and read.prepared and taken > 1:
            taken = max(1, self._in_place.fitting(conn, changes[:taken], read.prepared))
            chars = sum(rewritten_chars(row) for row, _ in changes[:taken])
        chosen, rest = changes[:taken], changes[taken:]
        began = time.monotonic()
        masked, usual = 0, chosen
        if self._in_place is not None and read.prepared:
            ready = [change for change in chosen if change[0].id in read.prepared]
            if ready:
                masked, left = self._in_place.write(conn, ready, read.prepared)
                usual = [change for change in chosen if change[0].id not in read.prepared] + left
        if usual:
            with self._masking(conn, len(usual)):
                masked += sum(
                    conn.exec_driver_sql(*update_many(group)).rowcount for group in groups(usual)
                )
        if chars:  # a write of less than SOME_CHARS is mostly its fixed cost
            per_char = (time.monotonic() - began) / max(chars, SOME_CHARS)
            self._write_per_char = max(0.8 * self._write_per_char, per_char)
        return (rest[0][0].id - 1 if rest else last), masked, chars, rest

    def _finish(self, conn: Connection) -> None:
        """Every turn follows the current rules: say so, and drop every re-scan's progress."""
        progress = RetentionSetting.project.like(f"{_THROUGH_PREFIX}%")
        conn.execute(delete(RetentionSetting).where(progress))
        self._keep(conn, VERSION_KEY, RULES_VERSION)

    def _keep(self, conn: Connection, key: str, value: int) -> None:
        statement = self._insert(RetentionSetting)
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[RetentionSetting.project],
                set_={
                    "keep_days": statement.excluded.keep_days,
                    "set_at": statement.excluded.set_at,
                },
            ),
            {"project": key, "keep_days": value, "set_at": datetime.now(UTC)},
        )

    def _adapt(self, elapsed: float) -> None:
        scale = min(2.0, max(0.25, SCAN_SECONDS / max(elapsed, 1e-4)))
        self._batch = min(MOST_BATCH, max(LEAST_BATCH, int(self._batch * scale)))

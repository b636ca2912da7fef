"""Building the common words' lists of best turns (best_turns.py) and counting the common
words (word_counts.py) in the upkeep, a few a step, with a step's reads made before its write
transaction.

A step's reads (every row's length, the walk of each word's rows, the counts) are made on a
connection that only reads (`Keeper.plan`, before the write lock); the step writes what they
found if nothing was written to the index since (FTS5's records of its rows and segments,
which every write changes, are the same), and otherwise only looks whether there is work,
leaving it to the next step's reads. At 1M turns those reads took 72-78 ms of a step after a
forget (bench/RESULTS.md), which a record waited for; now a step holds the lock only to write.
Merges come first: while they change the index at each step, reading ahead would be lost, so
it starts once a step finds list or count work, and stops when none is left.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from history.store.sqlite import best_turns, fts, word_counts

if TYPE_CHECKING:
    from sqlalchemy import Connection

# Lists built (or words counted) in one step until it has taken this long (at least one): a
# record waits for the step's writes, and after a re-scan or a forget (which empty the counts)
# the upkeep counts every common word again, each count a few ms at a million turns.
STEP_SECONDS = 0.025
# Lists a step looks at, of those the upkeep wants: the stale or missing ones are built while
# STEP_SECONDS allows.
LISTS_A_STEP = 64
# Steps in a row that found work but no reads made for it (a write came in between), after
# which a step reads under its write lock: writes that never pause still let the lists be built.
MISSES_UNDER_LOCK = 3


@dataclass
class _Work:
    """A step's lists and counts, and what they are computed from: the index's records
    (`key`, `structure`) and its rows then. Words move from `words` and `to_count` to
    `built` and `counted` as they are computed."""

    key: bytes
    rows: int
    words: list[tuple[str, str]]  # lists to build: (index form, a word of that form)
    to_count: list[str]
    built: dict[str, tuple[str, best_turns.Built | None]] = field(default_factory=dict)
    counted: dict[str, int] = field(default_factory=dict)


class Keeper:
    """Which words want a list, and building them (then counting the common words) a few a
    step (history/upkeep.py)."""

    def __init__(self) -> None:
        self._planned_at = -1
        self._wanted: list[tuple[str, str]] = []  # (index form, a word of that form)
        # The index forms of every word in LIST_FROM_SHARE of the sample or more (those above
        # LIST_UP_TO_SHARE have no list), counted for word_counts.py, at this many rows.
        self._frequent: dict[str, str] = {}  # index form: a word of that form
        self._to_count: list[str] = []
        self._counted_at = -1
        # Every row's length (recall_lengths) and the index's records (`structure`) it was
        # read at: any write to the index changes them.
        self._lengths: tuple[bytes, bytes] | None = None
        # The next step's work, read before its write transaction; whether to read it (lists
        # or counts are being built); steps in a row that found work and none read for them.
        self._ahead: _Work | None = None
        self._reading_ahead = False
        self._missed = 0

    def plan(self, conn: Connection) -> None:
        """Find the common words and, while lists or counts are being built, do the next
        step's reads, on a connection that only reads: the sample's words are split and
        stemmed here (~100 ms), and the lists and counts computed, not in a step's write
        transaction. (Merges come first: while they change the index at each step, reading
        ahead would be lost.)"""
        rows = fts.indexed_rows(conn)
        if rows < best_turns.LIST_FROM_ROWS or not best_turns.compiled(conn):
            return
        if self._planned_at < 0 or rows > self._planned_at * (1 + best_turns.REBUILD_AFTER_GROWTH):
            self._wanted, self._frequent = best_turns.common_words(conn)
            self._planned_at = rows
        if not self._reading_ahead:
            return
        key = structure(conn)
        if self._ahead is not None:
            if self._ahead.key == key and self._ahead.rows == rows:
                return  # computed for the index as it is: no step has run since
            self._returned(self._ahead)
        work = self._work(conn, rows, key)
        self._computed(conn, work)
        # Each statement reads the index as it is then: a write in between, and it is read
        # again.
        self._ahead = work if structure(conn) == key else None
        if self._ahead is None:
            self._returned(work)

    def merged(self) -> None:
        """The step merged FTS5's segments instead (the index changed): no reading ahead until
        a step finds list or count work again, and what was read is put back."""
        self._reading_ahead = False
        if self._ahead is not None:
            self._returned(self._ahead)
            self._ahead = None

    def step(self, conn: Connection) -> bool:
        """Build or rebuild the lists that are missing or stale, or count the common words, in
        the caller's write transaction, from what `plan` read when nothing was written since.
        Without that, the step only looks whether there is work, and leaves it to the next
        step's reads (after MISSES_UNDER_LOCK steps in a row without, it reads here). True
        when more are left."""
        rows = fts.indexed_rows(conn)
        if rows < best_turns.LIST_FROM_ROWS or not best_turns.compiled(conn):
            return False
        key = structure(conn)
        work, self._ahead = self._ahead, None
        if work is not None and (work.key != key or work.rows != rows):
            self._returned(work)
            work = None
        if work is None:
            work = self._work(conn, rows, key)
            if not work.words and not work.to_count:
                self._reading_ahead = False
                return False
            if self._missed < MISSES_UNDER_LOCK:
                self._missed += 1
                self._reading_ahead = True
                self._returned(work, computed=False)
                return True
            self._computed(conn, work)
        self._missed = 0
        for word, (_, built) in work.built.items():
            best_turns.write(conn, word, built, rows)
        for word, holding in work.counted.items():
            word_counts.keep(conn, word, holding, rows)
        self._reading_ahead = bool(self._wanted or self._to_count or self._counts_due(rows))
        return self._reading_ahead

    def _returned(self, work: _Work, computed: bool = True) -> None:
        """`work`'s words put back in the queues for a later step: those not computed, and
        (`computed`) those computed too, which are then dropped."""
        self._wanted.extend(reversed(work.words))
        self._to_count.extend(reversed(work.to_count))
        work.words, work.to_count = [], []
        if computed:
            self._wanted.extend((word, form) for word, (form, _) in work.built.items())
            self._to_count.extend(work.counted)
            work.built, work.counted = {}, {}

    def _counts_due(self, rows: int) -> bool:
        """Whether the common words' counts are to be taken again: after each growth that ages
        them, or a forget (which emptied them)."""
        fresh = self._counted_at <= rows <= self._counted_at * (1 + word_counts.FRESH_FOR_GROWTH)
        return self._counted_at < 0 or not fresh

    def _work(self, conn: Connection, rows: int, key: bytes) -> _Work:
        """What a step does: the lists missing or stale (up to LISTS_A_STEP of them), or, with
        every list built, the counts (again after each growth that ages them, or a forget,
        which emptied them)."""
        words: list[tuple[str, str]] = []
        while self._wanted and len(words) < LISTS_A_STEP:
            word, form = self._wanted.pop()
            built = conn.exec_driver_sql(
                f"SELECT turns FROM {best_turns.LISTS} WHERE word = ?", (word,)
            ).scalar()
            if built is None or rows > built * (1 + best_turns.REBUILD_AFTER_GROWTH):
                words.append((word, form))
        if words or self._wanted:
            return _Work(key, rows, words, [])
        if self._counts_due(rows):
            self._to_count = word_counts.stale(conn, sorted(self._frequent), rows)
            self._counted_at = rows
        work, self._to_count = _Work(key, rows, [], self._to_count), []
        return work

    def _computed(self, conn: Connection, work: _Work) -> None:
        """`work`'s lists built and counts taken while STEP_SECONDS allows (at least one);
        the rest are put back for a later step."""
        started = time.monotonic()

        def more() -> bool:
            done = len(work.built) + len(work.counted)
            return done == 0 or time.monotonic() - started < STEP_SECONDS

        while work.words and more():
            word, form = work.words.pop()
            lengths = self._row_lengths(conn, work.key)
            work.built[word] = (form, best_turns.computed(conn, form, lengths))
        while work.to_count and more():
            word = work.to_count.pop()
            work.counted[word] = word_counts.count(conn, word, self._frequent[word])
        self._returned(work, computed=False)  # what time did not allow

    def _row_lengths(self, conn: Connection, key: bytes) -> bytes:
        """Every row's length, read again only when the index's records (`key`) changed."""
        if self._lengths is None or self._lengths[1] != key:
            lengths = conn.exec_driver_sql(
                f"SELECT recall_lengths(id, sz) FROM {fts.FTS_TABLE}_docsize"
            ).scalar()
            self._lengths = (bytes(lengths or b""), key)
        return self._lengths[0]


def structure(conn: Connection) -> bytes:
    """FTS5's records of its rows and their sizes (id 1) and of its segments (id 10): a row
    added, deleted or rewritten changes the first (a delete with secure-delete on may leave
    the segments as they were), a merge the second."""
    found = conn.exec_driver_sql(
        f"SELECT block FROM {fts.FTS_TABLE}_data WHERE id IN (1, 10) ORDER BY id"
    ).scalars()
    return b"|".join(bytes(block or b"") for block in found)

"""A re-scan's masking written into the full-text index in place: the secret's words leave the
index's pages in the masking transaction, and no rewrite of the whole index is owed.

A turn masked the usual way (`turns_au`) has every old word deleted and every new word added.
With FTS5's secure-delete off, the old words stay in the index's old segments until the whole
index is rewritten (at 1M turns, steps of 70-150 ms with the write lock held); with it on, the
delete rewrites a page of the index for each word of the turn (at 1M, p99 234 ms a turn). Here
secure-delete is given only the words the masking takes out (those of the old text that the
masked text no longer holds: the secret's), the turn's other old words get FTS5's usual delete
markers (their old entries stay, shadowed, in old segments: words the masked turn still holds),
and the masked row is added: at 1M, p99 3.2 ms a turn (bench/RESULTS.md, "secret only").

What it leaves: `turns_fts_shadowed` lists the turns masked so. Once one is forgotten, its
shadowed words are forgotten text: the forget owes the whole-index rewrite (forgetting/), whose
end takes the turns it covered off the list. A turn already listed is masked the usual way (its
shadowed entries may hold the words a newer rule catches). While `turns_fts_by_hand` holds a
row (only inside the masking transaction) `turns_au` leaves the index to this module.

The split is FTS5's own (index_words.py); a turn whose text it cannot split is masked the usual
way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import cast

from sqlalchemy import Connection
from sqlalchemy.exc import DatabaseError

from history.store.rescan import READ, Change, groups, update_many
from history.store.sqlite import fts, fts_levels, index_words, segment_keys

_log = logging.getLogger(__name__)
SHADOWED, BY_HAND = f"{fts.FTS_TABLE}_shadowed", fts.BY_HAND_TABLE
_NAMES = fts.TEXT_COLUMNS
_FTS = fts.FTS_TABLE
_WRITE = f"INSERT INTO {_FTS} ({_FTS}, rowid, {', '.join(fts.INDEXED_COLUMNS)}) VALUES "
_ROW = "(" + ", ".join("?" * (2 + len(fts.INDEXED_COLUMNS))) + ")"
_AVERAGES = f"SELECT block FROM {_FTS}_data WHERE id = 1"
_SET_AVERAGES = f"UPDATE {_FTS}_data SET block = ? WHERE id = 1"


class InPlaceMasking:
    """The re-scan's write in place on SQLite (history.store.rescan.InPlace), for an index that
    runs with FTS5's secure-delete on. `owe_scrub`: the scrub a forget with secure-delete owes
    (its pages and log), in the caller's transaction."""

    def __init__(self, owe_scrub: Callable[[Connection], None]) -> None:
        self._splitter = index_words.Splitter()
        self._owe_scrub = owe_scrub

    def prepare(self, changes: list[Change]) -> dict[int, object]:
        prepared: dict[int, object] = {}
        for row, values in changes:
            old = [getattr(row, name) or "" for name in _NAMES]
            new = [values.get(name, value) for name, value in zip(_NAMES, old, strict=True)]
            split = self._splitter.split(old, new)
            if split is not None:
                prepared[row.id] = split
        return prepared

    def fitting(self, conn: Connection, changes: list[Change], prepared: dict[int, object]) -> int:
        """As many of the first turns as the segment index's lookups of the words they take
        out (one a word and segment, segment_keys.rekey) let in a step."""
        segments, lookups = fts_levels.segment_count(conn), 0
        for taken, (row, _) in enumerate(changes):
            split = cast(index_words.Split | None, prepared.get(row.id))
            lookups += len(split.words) * segments if split is not None else 0
            if lookups > segment_keys.LOOKUPS_A_STEP:
                return taken
        return len(changes)

    def write(
        self, conn: Connection, changes: list[Change], prepared: dict[int, object]
    ) -> tuple[int, list[Change]]:
        """Mask the turns not masked in place before (the others are left to the usual
        write), each only if it still holds what was read: a turn listed since it was read was
        masked in place by another process's re-scan, and is left as it is (the usual write
        would owe the index's rewrite for nothing)."""
        before = shadowed(conn, [row.id for row, _ in changes])
        ready = [change for change in changes if change[0].id not in before]
        usual = _still_as_read(conn, [change for change in changes if change[0].id in before])
        if not ready:
            return 0, usual
        conn.exec_driver_sql("SAVEPOINT recall_in_place")
        try:
            written = self._write(conn, ready, prepared)
        except DatabaseError as error:  # FTS5 refused: the usual write takes them all
            conn.exec_driver_sql("ROLLBACK TO recall_in_place")
            conn.exec_driver_sql(fts.secure_delete_statement(on=True))
            _log.warning("masking in place refused (%s); masked the usual way", error.orig)
            written, usual = 0, changes
        conn.exec_driver_sql("RELEASE recall_in_place")
        return written, usual

    def _write(self, conn: Connection, ready: list[Change], prepared: dict[int, object]) -> int:
        with by_hand(conn):
            written = [
                turn
                for group in groups(ready)
                for turn in conn.exec_driver_sql(*update_many(group, returning=True)).scalars()
            ]
        if written:
            splits = {turn: prepared[turn] for turn in written}
            write_index(conn, cast(dict[int, index_words.Split], splits))
            self._owe_scrub(conn)
        return len(written)


def _still_as_read(conn: Connection, changes: list[Change]) -> list[Change]:
    if not changes:
        return []
    ids = tuple(row.id for row, _ in changes)
    found = conn.exec_driver_sql(
        f"SELECT id, {', '.join(READ)} FROM turns WHERE id IN ({', '.join('?' * len(ids))})", ids
    )
    now = {turn: tuple(values) for turn, *values in found}
    return [(row, new) for row, new in changes if now.get(row.id) == tuple(row[1:])]


def shadowed(conn: Connection, ids: Sequence[int]) -> set[int]:
    """Of `ids`, the turns masked in place before."""
    marks = ", ".join("?" * len(ids))
    found = conn.exec_driver_sql(
        f"SELECT turn_id FROM {SHADOWED} WHERE turn_id IN ({marks})", tuple(ids)
    )
    return set(found.scalars())


@contextmanager
def by_hand(conn: Connection) -> Iterator[None]:
    """Rows of `turns` written in the block leave the index as it is (`turns_au` waits)."""
    conn.exec_driver_sql(f"INSERT INTO {BY_HAND} (id) VALUES (1)")
    yield
    conn.exec_driver_sql(f"DELETE FROM {BY_HAND}")


def write_index(conn: Connection, splits: dict[int, index_words.Split]) -> None:
    """The masked turns' entries, in the caller's transaction, their rows written `by_hand`:
    with secure-delete off, the kept words deleted and the masked text added; then with it on,
    the secret's words deleted. Each statement writes every turn's (FTS5 writes its pending
    words out as a segment at each statement's start, with the setting of that moment);
    secure-delete is left on, as the index runs.

    The secret's delete comes last because FTS5 reports its index damaged when a turn deleted
    in part is deleted again before it is added; and as a delete it takes the turn's sizes
    (`_docsize`), which the added text wrote and are put back. Then the segment index's keys
    that held a prefix of a word taken out are given new ones (segment_keys.py)."""
    ids = sorted(splits)
    marks = ", ".join("?" * len(ids))
    found = conn.exec_driver_sql(
        f"SELECT id, project_tag FROM turns WHERE id IN ({marks})", tuple(ids)
    )
    tags: dict[int, str] = {turn: tag for turn, tag in found}
    conn.exec_driver_sql(fts.secure_delete_statement(on=False))
    rest: list[tuple[object, ...]] = []
    for i in ids:
        rest += [("delete", i, *splits[i].kept, tags[i]), (None, i, *splits[i].masked, tags[i])]
    _write(conn, rest)
    secret = [("delete", i, *splits[i].secret, "") for i in ids if any(splits[i].secret)]
    conn.exec_driver_sql(fts.secure_delete_statement(on=True))
    if secret:
        taken = tuple(row[1] for row in secret)
        sizes = list(
            conn.exec_driver_sql(
                f"SELECT id, sz FROM {_FTS}_docsize WHERE id IN ({', '.join('?' * len(taken))})",
                taken,
            )
        )
        _write(conn, secret)
        conn.exec_driver_sql(
            f"INSERT INTO {_FTS}_docsize (id, sz) VALUES {', '.join(['(?, ?)'] * len(sizes))}",
            tuple(value for row in sizes for value in row),
        )
        _count_rows_once(conn, len(secret))
        segment_keys.rekey(conn, [word for i in ids for word in splits[i].words])
    listed = ", ".join(["(?)"] * len(ids))
    conn.exec_driver_sql(f"INSERT INTO {SHADOWED} (turn_id) VALUES {listed}", tuple(ids))


def _write(conn: Connection, rows: list[tuple[object, ...]]) -> None:
    values = tuple(value for row in rows for value in row)
    conn.exec_driver_sql(_WRITE + ", ".join([_ROW] * len(rows)), values)


def _count_rows_once(conn: Connection, turns: int) -> None:
    """A turn whose secret's words were deleted apart from its other words was deleted twice
    and added once: FTS5's row count, which its ranking divides by, gets the row back (the
    SAVEPOINT has FTS5 write out its pending words, with secure-delete on, and its totals)."""
    conn.exec_driver_sql("SAVEPOINT recall_averages")  # FTS5 writes out the totals it holds
    totals = fts.varints(conn.exec_driver_sql(_AVERAGES).scalar_one())
    totals[0] += turns
    conn.exec_driver_sql(_SET_AVERAGES, (b"".join(map(fts.varint, totals)),))
    conn.exec_driver_sql("RELEASE recall_averages")


def index_rebuilt(conn: Connection) -> None:
    """The index was made anew from the turns: no old entry of a turn masked in place is left."""
    conn.exec_driver_sql(f"DELETE FROM {SHADOWED}")


def rewrite_began(conn: Connection) -> None:
    """The index's rewrite starts: the turns masked in place by now are rewritten out of it."""
    conn.exec_driver_sql(f"UPDATE {SHADOWED} SET in_rewrite = 1")


def rewrite_ended(conn: Connection) -> None:
    conn.exec_driver_sql(f"DELETE FROM {SHADOWED} WHERE in_rewrite")

"""The vectors a search by meaning goes through, in memory: read from `turn_vectors` (vectors.py)
and searched exactly, or, for every project past APPROXIMATE_FROM_ROWS, through an approximate
index whose candidates are scored exactly (approximate.py).

The approximate index is built in a thread, from the matrix of a full load, and kept across
later loads: a candidate whose turn is no longer in the matrix (forgotten) is dropped, and the
rows it does not hold (above its highest rowid, or appended since the load) are searched
exactly beside it. It is built again, while the old one serves, once a full load finds a turn
it holds forgotten, or rows it does not hold past TAIL_SHARE of those it does; the model
changing drops it at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from sqlalchemy import Connection, text

from history.meaning.approximate import Approximate
from history.meaning.vectors import ENDS, nearest_of, stale_below

# A search's matrix is read again whole at least this often (see VectorMatrix).
RELOAD_SECONDS = 300.0
# Vectors read from the table this many rows at a time.
SLICE_ROWS = 32768
# From this many vectors, a search of every project reads an approximate index (built in the
# background; exact until it is ready): exact search reads every vector, ~15 ms at 100k and
# ~115 ms at 1M (bench/RESULTS.md).
APPROXIMATE_FROM_ROWS = 50_000
# The approximate index brings this many candidates per turn asked for, scored exactly.
CANDIDATES_PER_HIT = 4
# Rows the approximate index does not hold, as a share of those it holds, before a rebuild.
TAIL_SHARE = 0.1
# Room left after a full load for rows appended later, as a share of the rows loaded (at least
# LEAST_ROOM rows); once it is full, the next refresh loads everything again.
ROOM_SHARE = 0.125
LEAST_ROOM = 1024
# Rows converted to float32 at a time while a full load is sorted.
SORT_BLOCK = 65536

# Every vector with its turn's project; those above the rowid :hi.
_VECTORS = (
    "SELECT v.turn_id, t.project, v.vector FROM turn_vectors v JOIN turns t ON t.id = v.turn_id"
)
_VECTORS_OF = " AND v.model = :model"
_ALL_VECTORS = text(_VECTORS + " WHERE v.model = :model")
_VECTORS_ABOVE = text(_VECTORS + " WHERE v.turn_id > :hi" + _VECTORS_OF)
_VECTORS_BETWEEN = text(_VECTORS + " WHERE v.turn_id >= :low AND v.turn_id < :high" + _VECTORS_OF)


class VectorMatrix:
    """Every stored vector in memory, as float32 (the int8 values as they are, so a score is
    exactly the stored vector's dot product with the query, / 127), beside each its rowid and
    its project's code. 1,548 bytes a turn (384 x 4, the rowid, the code), and ROOM_SHARE more
    for rows appended later: 1.74 GB for 1M turns; while a full load is sorted, the vectors'
    int8 bytes besides (0.38 GB). The approximate index adds ~650 bytes a turn past
    APPROXIMATE_FROM_ROWS.

    After a full load the rows are sorted by project, so a search in one project multiplies
    one contiguous slice (and the few rows appended since, which follow in rowid order).

    A search looks only at the lowest and highest rowids (two index seeks: counting the rows
    would read the whole table): rows added above are read and appended alone; a change below,
    `stale()` (a search met a vector whose turn is gone) or RELOAD_SECONDS reload it all, so a
    forgotten turn's vector leaves memory too, the approximate index's copy with it."""

    def __init__(self, approximate_from: int | None = None) -> None:
        self._lock = threading.Lock()
        self._approximate_from = approximate_from or APPROXIMATE_FROM_ROWS
        self._empty()
        self._bounds: tuple[Any, Any, Any, Any] = (None, None, None, None)
        self._loaded_at = 0.0
        self._approximate: Approximate | None = None
        self._building = False

    def _empty(self) -> None:
        self._ids: Any = np.zeros(0, np.int64)
        self._rows: Any = np.zeros((0, 0), np.float32)
        self._projects: Any = np.zeros(0, np.int32)
        self._codes: dict[str, int] = {}
        self._n = 0
        self._sorted = 0  # rows [0, _sorted) are sorted by project ...
        self._slices: dict[int, tuple[int, int]] = {}  # ... each project's here
        self._by_rowid: Any = np.zeros(0, np.int64)  # their positions in rowid order
        self._rowids: Any = np.zeros(0, np.int64)  # their rowids in order

    @property
    def ids(self) -> Any:
        return self._ids[: self._n]

    @property
    def rows(self) -> Any:
        return self._rows[: self._n]

    @property
    def approximate(self) -> bool:
        """A search of every project reads the approximate index (built, of this model)."""
        return self._approximate is not None

    def stale(self) -> None:
        with self._lock:
            self._bounds = (None, None, None, None)

    def refresh(self, conn: Connection, model: str) -> None:
        """Bring the matrix up to the table: `model`'s vectors only."""
        lo, hi = conn.execute(ENDS).one()
        # Where a re-embedding has got to: the rows at or above it are `model`'s.
        frontier = stale_below(conn, model) if lo is not None else None
        bounds = (lo, hi, lo if frontier is None else frontier, model)
        with self._lock:
            old_lo, old_hi, old_frontier, old_model = self._bounds
            fresh = time.monotonic() - self._loaded_at < RELOAD_SECONDS
            if fresh and bounds == self._bounds:
                return
            appended = (
                fresh
                and old_hi is not None
                and (lo, model) == (old_lo, old_model)
                and hi is not None
                and bounds[2] <= old_frontier
            )
            streamed = conn.execution_options(stream_results=True)
            if appended:
                parts = [streamed.execute(_VECTORS_ABOVE, {"hi": old_hi, "model": model})]
                if bounds[2] < old_frontier:  # re-embedded since: between the two frontiers
                    between = {"low": bounds[2], "high": old_frontier, "model": model}
                    parts.append(streamed.execute(_VECTORS_BETWEEN, between))
                appended = all(self._append(part) for found in parts for part in _parts(found))
                for found in parts:
                    found.close()
            if not appended:  # or the room for appended rows was full
                self._reload(streamed, model)
            self._bounds = bounds

    def _reload(self, conn: Connection, model: str) -> None:
        self._empty()
        self._loaded_at = time.monotonic()
        if self._approximate is not None and self._approximate.model != model:
            self._approximate = None
        self._load(_parts(conn.execute(_ALL_VECTORS, {"model": model})))
        self._build_if_due(model)

    def _load(self, parts: Iterator[Any]) -> None:
        """Every vector, sorted by project into buffers with room for rows appended later."""
        decoded = [self._decoded(part) for part in parts]
        ids = [rowids for rowids, _codes, _rows in decoded]
        projects = [codes for _rowids, codes, _rows in decoded]
        vectors = [rows for _rowids, _codes, rows in decoded]
        del decoded
        if not ids:
            return
        every = np.concatenate(vectors)
        del vectors
        n, dims = every.shape
        order = np.argsort(np.concatenate(projects), kind="stable")
        room = n + max(LEAST_ROOM, int(ROOM_SHARE * n))
        self._ids, self._projects = np.empty(room, np.int64), np.empty(room, np.int32)
        self._ids[:n] = np.concatenate(ids)[order]
        self._projects[:n] = np.concatenate(projects)[order]
        self._rows = np.empty((room, dims), np.float32)
        for start in range(0, n, SORT_BLOCK):
            stop = min(n, start + SORT_BLOCK)
            self._rows[start:stop] = every[order[start:stop]]
        self._n = n
        self._place()

    def _place(self) -> None:
        """Where each project's slice is, and each rowid's row."""
        n = self._n
        codes = np.arange(len(self._codes), dtype=np.int32)
        starts = np.searchsorted(self._projects[:n], codes, "left")
        ends = np.searchsorted(self._projects[:n], codes, "right")
        spans = zip(codes, starts, ends, strict=True)
        self._slices = {int(code): (int(start), int(end)) for code, start, end in spans}
        self._sorted = n
        self._by_rowid = np.argsort(self._ids[:n], kind="stable")
        self._rowids = self._ids[self._by_rowid]

    def _build_if_due(self, model: str) -> None:
        n, current = self._sorted, self._approximate
        if n < self._approximate_from or self._building:
            return
        if current is not None:
            held = int(np.searchsorted(self._rowids, current.highest, "right"))
            same = held == current.count and np.array_equal(self._rowids[:held], current.ids)
            if same and n - held <= TAIL_SHARE * current.count:
                return
        self._building = True
        rows = (self._ids[:n], self._rows[:n], model)
        threading.Thread(target=self._build, args=rows, daemon=True).start()

    def _build(self, ids: Any, rows: Any, model: str) -> None:
        """The approximate index over a full load's rows, in a thread."""
        built = Approximate.build(ids, rows, model)
        with self._lock:
            self._building = False
            if built is not None and self._bounds[3] == model:
                self._approximate = built

    def _decoded(self, part: Any) -> tuple[Any, Any, Any]:
        """Rowids, project codes and int8 vectors of rows read from the table."""
        m, dims = len(part), len(part[0][2])
        ids = np.fromiter((row[0] for row in part), np.int64, m)
        codes = self._codes
        projects = np.fromiter((codes.setdefault(row[1], len(codes)) for row in part), np.int32, m)
        rows = np.frombuffer(b"".join(bytes(row[2]) for row in part), np.int8).reshape(m, dims)
        return ids, projects, rows

    def _append(self, part: Any) -> bool:
        """Rows read since the last load, into the room left for them; False when it is full
        (or nothing was loaded)."""
        ids, projects, rows = self._decoded(part)
        n, m = self._n, len(ids)
        if not n or n + m > len(self._ids) or rows.shape[1] != self._rows.shape[1]:
            return False
        # Written past the rows a search holds: a search running meanwhile sees none of them.
        self._ids[n : n + m], self._projects[n : n + m] = ids, projects
        self._rows[n : n + m] = rows
        self._n = n + m
        return True

    def nearest(self, query: Any, k: int, project: str | None = None) -> list[tuple[int, float]]:
        """The `k` rowids nearest `query` (a unit vector), with their cosine, best first; only
        `project`'s turns when it is given."""
        if k < 1:
            return []
        query = np.asarray(query, np.float32).reshape(-1)
        with self._lock:
            n, done = self._n, self._sorted
            if not n:  # nothing of this model yet (a new one's re-embedding has not begun)
                return []
            ids, rows, projects = self._ids[:n], self._rows[:n], self._projects[:n]
            by_rowid, rowids = self._by_rowid, self._rowids
            approximate = self._approximate
            code = None if project is None else self._codes.get(project, -1)
            start, end = self._slices.get(code, (0, 0)) if code is not None else (0, done)
        if code is not None:  # the project's slice, and its rows appended since
            later = done + np.flatnonzero(projects[done:] == code)
            at = np.concatenate([np.arange(start, end), later])
            scores = np.concatenate([rows[start:end] @ query, rows[later] @ query])
        elif approximate is not None and done:  # its candidates, and the rows it does not hold
            found = approximate.candidates(query, CANDIDATES_PER_HIT * k)
            places = np.minimum(np.searchsorted(rowids, found), done - 1)
            held = by_rowid[places[rowids[places] == found]]  # forgotten ones dropped
            above = by_rowid[np.searchsorted(rowids, approximate.highest, "right") :]
            at = np.concatenate([held, above, np.arange(done, n)])
            scores = rows[at] @ query
        else:
            at, scores = None, rows @ query
        if not len(scores):
            return []
        return nearest_of(ids, scores, k, at)


def _parts(found: Any) -> Iterator[Any]:
    yield from found.partitions(SLICE_ROWS)

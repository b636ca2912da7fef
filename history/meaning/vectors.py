"""The stored vectors: the background step that embeds, and the matrix a search goes through.

`turn_vectors` (revision 0021) holds one row per embedded turn, keyed by the turn's rowid: the
model that made it and its unit vector quantized to int8 (x 127, one byte a dimension). A turn's
deletion deletes its vector in the same transaction (a trigger on SQLite, a cascading foreign
key on PostgreSQL), so every forget and expiry takes the vectors with it; SQLite's secure_delete
zeroes the row's bytes and the forget's scrub the pages it freed.

Embedding goes newest first and keeps no state of its own: the turns left are those above the
highest rowid embedded (recorded since) and below the lowest (older ones not reached yet), so a
step killed halfway is simply taken again.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, text

from history.meaning.embedder import Embedder, turn_text

SCALE = 127.0
# Vectors read from the table this many rows at a time.
SLICE_ROWS = 32768

# Two index seeks: SQLite reads the whole table for min() and max() in one SELECT.
_ENDS = text(
    "SELECT (SELECT min(turn_id) FROM turn_vectors), (SELECT max(turn_id) FROM turn_vectors)"
)
# A search's matrix is read again whole at least this often (see VectorMatrix).
RELOAD_SECONDS = 300.0
_NEWER = text(
    "SELECT id, asked, answered, files FROM turns WHERE id > :hi ORDER BY id DESC LIMIT :n"
)
_OLDER = text(
    "SELECT id, asked, answered, files FROM turns WHERE id < :lo ORDER BY id DESC LIMIT :n"
)
_ALL = text("SELECT id, asked, answered, files FROM turns ORDER BY id DESC LIMIT :n")
_WAITING_NEWER = text("SELECT count(*) FROM turns WHERE id > :hi")
_WAITING_OLDER = text("SELECT count(*) FROM turns WHERE id < :lo")
_TURNS = text("SELECT count(*) FROM turns")
# Every vector with its turn's project; those above the rowid :hi.
_VECTORS = (
    "SELECT v.turn_id, t.project, v.vector FROM turn_vectors v JOIN turns t ON t.id = v.turn_id"
)
_ALL_VECTORS = text(_VECTORS)
_VECTORS_ABOVE = text(_VECTORS + " WHERE v.turn_id > :hi")
_INSERT = text("INSERT INTO turn_vectors (turn_id, model, vector) VALUES (:turn_id, :model, :v)")


def quantized(rows: Any) -> Any:
    """Unit float vectors as int8 (x 127, rounded)."""
    return np.clip(np.rint(np.asarray(rows) * SCALE), -127, 127).astype(np.int8)


@dataclass(frozen=True)
class _Row:
    id: int
    text: str


def _rows(found: Any) -> list[_Row]:
    from history.domain import Turn

    out = []
    for row in found:
        files = tuple(json.loads(row.files or "[]"))
        shell = Turn("", "", "", _EPOCH, False, row.asked, row.answered, files, (), ())
        out.append(_Row(int(row.id), turn_text(shell)))
    return out


def _epoch() -> Any:
    from datetime import UTC, datetime

    return datetime(1970, 1, 1, tzinfo=UTC)


_EPOCH = _epoch()


def waiting(conn: Connection) -> int:
    """How many turns wait to be embedded."""
    lo, hi = conn.execute(_ENDS).one()
    if hi is None:
        return int(conn.execute(_TURNS).scalar_one())
    newer = conn.execute(_WAITING_NEWER, {"hi": hi}).scalar_one()
    return int(newer) + int(conn.execute(_WAITING_OLDER, {"lo": lo}).scalar_one())


def next_turns(conn: Connection, n: int) -> list[_Row]:
    """The next `n` turns to embed: those recorded since the newest embedded, then older ones."""
    lo, hi = conn.execute(_ENDS).one()
    if hi is None:
        return _rows(conn.execute(_ALL, {"n": n}))
    found = _rows(conn.execute(_NEWER, {"hi": hi, "n": n}))
    if len(found) < n:
        found += _rows(conn.execute(_OLDER, {"lo": lo, "n": n - len(found)}))
    return found


def writing(engine: Engine) -> Engine:
    """The engine whose transactions take SQLite's write lock first (BEGIN IMMEDIATE, waiting
    out another writer, announced to a forget in steps); PostgreSQL's as it is."""
    if engine.dialect.name != "sqlite":
        return engine
    from history.store.sqlite.engine import writer

    return writer(engine)


def embed_step(engine: Engine, embedder: Embedder, n: int = 16) -> int:
    """Embed the next `n` turns (read in one short transaction, the model run outside any, the
    vectors written in another); the number embedded, 0 when none wait. A turn forgotten
    meanwhile is skipped: its vector is not written."""
    with engine.connect() as conn:
        rows = next_turns(conn, n)
    if not rows:
        return 0
    vectors = quantized(embedder.embed([row.text for row in rows]))
    with writing(engine).begin() as conn:
        marks = ", ".join(str(row.id) for row in rows)
        alive = set(conn.execute(text(f"SELECT id FROM turns WHERE id IN ({marks})")).scalars())
        values = [
            {"turn_id": row.id, "model": embedder.model_id, "v": vector.tobytes()}
            for row, vector in zip(rows, vectors, strict=True)
            if row.id in alive
        ]
        if values:
            conn.execute(_INSERT, values)
    return len(rows)


def embed_all(
    engine: Engine,
    embedder: Embedder,
    batch: int = 16,
    progress: Callable[[int, int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Embed every turn waiting, a batch at a time; `progress(done, left)` after each."""
    done = 0
    while not (stop and stop()):
        step = embed_step(engine, embedder, batch)
        if not step:
            break
        done += step
        if progress is not None:
            with engine.connect() as conn:
                progress(done, waiting(conn))
    return done


class VectorMatrix:
    """Every stored vector in memory, as float32 (the int8 values as they are, so a score is
    exactly the stored vector's dot product with the query, / 127), rows contiguous in buffers
    that grow by doubling; beside each row its rowid and its project's code, so a search in one
    project multiplies only that project's rows. 1,548 bytes a turn (384 x 4, the rowid, the
    code): 1.55 GB for 1M turns, up to twice that just after the buffers grew.

    A search looks only at the lowest and highest rowids (two index seeks: counting the rows
    would read the whole table): rows added above are read and appended alone; a change below,
    `stale()` (a search met a vector whose turn is gone) or RELOAD_SECONDS reload it all, so a
    forgotten turn's vector leaves memory too."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: Any = np.zeros(0, np.int64)
        self._rows: Any = np.zeros((0, 0), np.float32)
        self._projects: Any = np.zeros(0, np.int32)
        self._codes: dict[str, int] = {}
        self._n = 0
        self._bounds: tuple[Any, Any] = (None, None)
        self._loaded_at = 0.0

    @property
    def ids(self) -> Any:
        return self._ids[: self._n]

    @property
    def rows(self) -> Any:
        return self._rows[: self._n]

    def stale(self) -> None:
        with self._lock:
            self._bounds = (None, None)

    def refresh(self, conn: Connection) -> None:
        lo, hi = conn.execute(_ENDS).one()
        with self._lock:
            old_lo, old_hi = self._bounds
            fresh = time.monotonic() - self._loaded_at < RELOAD_SECONDS
            if fresh and (lo, hi) == (old_lo, old_hi):
                return
            appended = fresh and old_hi is not None and lo == old_lo and hi is not None
            if not appended:
                self._ids = np.zeros(0, np.int64)
                self._rows = np.zeros((0, 0), np.float32)
                self._projects = np.zeros(0, np.int32)
                self._codes, self._n = {}, 0
                self._loaded_at = time.monotonic()
            streamed = conn.execution_options(stream_results=True)
            if appended:
                found = streamed.execute(_VECTORS_ABOVE, {"hi": old_hi})
            else:
                found = streamed.execute(_ALL_VECTORS)
            for part in found.partitions(SLICE_ROWS):
                self._append(part)
            self._bounds = (lo, hi)

    def _append(self, part: Any) -> None:
        m, dims = len(part), len(part[0][2])
        ids = np.fromiter((row[0] for row in part), np.int64, m)
        codes = self._codes
        projects = np.fromiter((codes.setdefault(row[1], len(codes)) for row in part), np.int32, m)
        rows = np.frombuffer(b"".join(bytes(row[2]) for row in part), np.int8).reshape(m, dims)
        n = self._n
        if n + m > len(self._ids) or not n:
            size = max(n + m, 2 * len(self._ids), 1024)
            grown_ids, grown_projects = np.empty(size, np.int64), np.empty(size, np.int32)
            grown_rows = np.empty((size, dims), np.float32)
            if n:
                grown_ids[:n], grown_projects[:n] = self._ids[:n], self._projects[:n]
                grown_rows[:n] = self._rows[:n]
            self._ids, self._projects, self._rows = grown_ids, grown_projects, grown_rows
        # Written past the rows a search holds: a search running meanwhile sees none of them.
        self._ids[n : n + m], self._projects[n : n + m] = ids, projects
        self._rows[n : n + m] = rows
        self._n = n + m

    def nearest(self, query: Any, k: int, project: str | None = None) -> list[tuple[int, float]]:
        """The `k` rowids nearest `query` (a unit vector), with their cosine, best first; only
        `project`'s turns when it is given."""
        with self._lock:
            n = self._n
            ids, rows = self._ids[:n], self._rows[:n]
            code = None if project is None else self._codes.get(project, -1)
            if code is not None:
                at = np.flatnonzero(self._projects[:n] == code)
                ids, rows = ids[at], rows[at]
        if not len(ids) or k < 1:
            return []
        scores = rows @ np.asarray(query, np.float32).reshape(-1)
        k = min(k, len(ids))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best])]
        return [(int(ids[i]), float(scores[i]) / SCALE) for i in best]

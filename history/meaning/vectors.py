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
# Vectors compared a slice at a time: int8 turned into float32 costs memory per row compared.
SLICE_ROWS = 32768

_ENDS = text("SELECT min(turn_id), max(turn_id) FROM turn_vectors")
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
    """Every stored vector in memory. A search looks only at the lowest and highest rowids (two
    index seeks: counting the rows would read the whole table): rows added above are appended;
    a change below, `stale()` (a search met a vector whose turn is gone) or RELOAD_SECONDS
    reload it all, so a forgotten turn's vector leaves memory too."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.ids: Any = np.zeros(0, np.int64)
        self.rows: Any = np.zeros((0, 0), np.int8)
        self._bounds: tuple[Any, Any] = (None, None)
        self._loaded_at = 0.0

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
            query = "SELECT turn_id, vector FROM turn_vectors"
            appended = fresh and old_hi is not None and lo == old_lo and hi is not None
            if appended:
                found = conn.execute(text(query + " WHERE turn_id > :hi"), {"hi": old_hi}).all()
            else:
                found = conn.execute(text(query)).all()
                self._loaded_at = time.monotonic()
            ids = np.fromiter((row[0] for row in found), np.int64, len(found))
            dims = len(found[0][1]) if found else 0
            rows = np.frombuffer(b"".join(bytes(row[1]) for row in found), np.int8)
            rows = rows.reshape(len(found), dims) if found else np.zeros((0, dims), np.int8)
            if appended:
                ids, rows = np.concatenate([self.ids, ids]), np.concatenate([self.rows, rows])
            self.ids, self.rows, self._bounds = ids, rows, (lo, hi)

    def nearest(self, query: Any, k: int) -> list[tuple[int, float]]:
        """The `k` rowids nearest `query` (a unit vector), with their cosine, best first."""
        with self._lock:
            ids, rows = self.ids, self.rows
        if not len(ids):
            return []
        q = np.asarray(query, np.float32).reshape(-1)
        scores = np.empty(len(ids), np.float32)
        for at in range(0, len(ids), SLICE_ROWS):
            scores[at : at + SLICE_ROWS] = rows[at : at + SLICE_ROWS].astype(np.float32) @ q
        k = min(k, len(ids))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best])]
        return [(int(ids[i]), float(scores[i]) / SCALE) for i in best]

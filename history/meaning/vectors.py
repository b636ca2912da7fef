"""The stored vectors and the background step that embeds them (matrix.py: what a search reads).

`turn_vectors` (revision 0021) holds one row per embedded turn, keyed by the turn's rowid: the
model that made it and its unit vector quantized to int8 (x 127, one byte a dimension). A turn's
deletion deletes its vector in the same transaction (a trigger on SQLite, a cascading foreign
key on PostgreSQL), so every forget and expiry takes the vectors with it; SQLite's secure_delete
zeroes the row's bytes and the forget's scrub the pages it freed.

Embedding goes newest first and keeps no state of its own: the turns left are those above the
highest rowid embedded (recorded since) and below the lowest (older ones not reached yet), so a
step killed halfway is simply taken again. So that no turn is skipped, those recorded since are
taken from the lowest up (all at once, as a live session's few are), the older ones newest
first.

Each vector names the model that made it. When the model changes (another model id), the
vectors of the old one are re-embedded in place, newest first, after the turns recorded since
and before the older ones never embedded: so while a re-embedding is under way the old model's
vectors are exactly the lowest ones, below a frontier found by a binary search of index seeks
(`stale_below`). A search reads only the current model's vectors (the others' cosines with its
query mean nothing); `waiting` counts the old ones too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, text

from history.meaning.embedder import Embedder, turn_text

SCALE = 127.0
# Two index seeks: SQLite reads the whole table for min() and max() in one SELECT.
ENDS = text(
    "SELECT (SELECT min(turn_id) FROM turn_vectors), (SELECT max(turn_id) FROM turn_vectors)"
)
# Oldest first above the highest embedded: newest first, the highest would jump past the rest.
_NEWER = text("SELECT id, asked, answered, files FROM turns WHERE id > :hi ORDER BY id LIMIT :n")
_OLDER = text(
    "SELECT id, asked, answered, files FROM turns WHERE id < :lo ORDER BY id DESC LIMIT :n"
)
_ALL = text("SELECT id, asked, answered, files FROM turns ORDER BY id DESC LIMIT :n")
_WAITING_NEWER = text("SELECT count(*) FROM turns WHERE id > :hi")
_WAITING_OLDER = text("SELECT count(*) FROM turns WHERE id < :lo")
_TURNS = text("SELECT count(*) FROM turns")
# A turn embedded again (another model, or two processes at once) has its row replaced.
_INSERT = text(
    "INSERT INTO turn_vectors (turn_id, model, vector) VALUES (:turn_id, :model, :v) "
    "ON CONFLICT (turn_id) DO UPDATE SET model = excluded.model, vector = excluded.vector"
)
# The lowest and highest vectors' models, and the vector at or just below a rowid: index seeks.
_LOWEST = text("SELECT turn_id, model FROM turn_vectors ORDER BY turn_id LIMIT 1")
_HIGHEST = text("SELECT turn_id, model FROM turn_vectors ORDER BY turn_id DESC LIMIT 1")
_AT_OR_BELOW = text(
    "SELECT model FROM turn_vectors WHERE turn_id <= :x ORDER BY turn_id DESC LIMIT 1"
)
_STALE = text(
    "SELECT t.id, t.asked, t.answered, t.files FROM turn_vectors v JOIN turns t ON t.id = v.turn_id"
    " WHERE v.turn_id < :below AND v.model <> :model ORDER BY v.turn_id DESC LIMIT :n"
)
_STALE_COUNT = text("SELECT count(*) FROM turn_vectors WHERE turn_id < :below")


def quantized(rows: Any) -> Any:
    """Unit float vectors as int8 (x 127, rounded)."""
    return np.clip(np.rint(np.asarray(rows) * SCALE), -127, 127).astype(np.int8)


def nearest_of(ids: Any, scores: Any, k: int, at: Any = None) -> list[tuple[int, float]]:
    """The `k` highest of `scores` (int8 vectors times a query), highest first, as rowids and
    cosines: score i is `ids[i]`'s, or `ids[at[i]]`'s when `at` is given."""
    k = min(k, len(scores))
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best])]
    rowids = ids[best] if at is None else ids[at[best]]
    return [(int(row), float(scores[i]) / SCALE) for row, i in zip(rowids, best, strict=True)]


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


def stale_below(conn: Connection, model: str) -> int | None:
    """The rowid below which every vector is another model's (None: every vector is `model`'s).

    A re-embedding goes newest first, so the vectors of `model` are the highest ones: whether
    the vector at or just below a rowid is `model`'s changes once, at the frontier, found in
    ~log2(rowids) index seeks."""
    lowest = conn.execute(_LOWEST).one_or_none()
    if lowest is None or lowest.model == model:
        return None
    highest = conn.execute(_HIGHEST).one()
    if highest.model != model:
        return int(highest.turn_id) + 1
    old, new = int(lowest.turn_id), int(highest.turn_id)  # old's vector is stale, new's is not
    while new - old > 1:
        middle = (old + new) // 2
        if conn.execute(_AT_OR_BELOW, {"x": middle}).scalar_one() == model:
            new = middle
        else:
            old = middle
    return new


def waiting(conn: Connection, model: str) -> int:
    """How many turns wait to be embedded (by `model`: those of another model's vector too)."""
    lo, hi = conn.execute(ENDS).one()
    if hi is None:
        return int(conn.execute(_TURNS).scalar_one())
    newer = conn.execute(_WAITING_NEWER, {"hi": hi}).scalar_one()
    older = conn.execute(_WAITING_OLDER, {"lo": lo}).scalar_one()
    below = stale_below(conn, model)
    stale = 0 if below is None else conn.execute(_STALE_COUNT, {"below": below}).scalar_one()
    return int(newer) + int(older) + int(stale)


def next_turns(conn: Connection, n: int, model: str) -> list[_Row]:
    """The next `n` turns to embed: those recorded since the newest embedded, then those whose
    vector another model made (newest first), then older ones never embedded."""
    lo, hi = conn.execute(ENDS).one()
    if hi is None:
        return _rows(conn.execute(_ALL, {"n": n}))
    found = _rows(conn.execute(_NEWER, {"hi": hi, "n": n}))
    below = stale_below(conn, model) if len(found) < n else None
    if below is not None:
        left = {"below": below, "model": model, "n": n - len(found)}
        found += _rows(conn.execute(_STALE, left))
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
        rows = next_turns(conn, n, embedder.model_id)
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
                progress(done, waiting(conn, embedder.model_id))
    return done

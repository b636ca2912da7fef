"""The nearest vectors read straight from the table, for a process that searches once or twice
and exits (`recall search`): a search in one project reads only that project's vectors, and
nothing is sorted, kept for later or indexed. A long-running process (the service, `recall
mcp`) keeps every vector in memory instead (matrix.py), which costs a full load at its first
search (8.3 s at 1M, 0.86 s at 100k) and pays back from the second.

The scores are the matrix's: the stored int8 values times the query, over SCALE."""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import Connection, text

from history.meaning.vectors import nearest_of

# Rows multiplied by the query this many at a time (their float32 copy stays small).
BLOCK_ROWS = 65536

_EVERY = text("SELECT turn_id, vector FROM turn_vectors WHERE model = :model")
_PROJECT = text(
    "SELECT v.turn_id, v.vector FROM turns AS t JOIN turn_vectors AS v ON v.turn_id = t.id"
    " WHERE t.project = :project AND v.model = :model"
)


class TableScan:
    """The vectors of the projects searched so far (or of all), as read from the table."""

    def __init__(self) -> None:
        self._read: dict[tuple[str, str | None], tuple[Any, Any]] = {}

    def nearest(
        self, conn: Connection, model: str, query: Any, k: int, project: str | None = None
    ) -> list[tuple[int, float]]:
        """The `k` rowids nearest `query` (a unit vector) with their cosine, best first; only
        `project`'s (its stored key) when given."""
        ids, rows = self._vectors(conn, model, project)
        if k < 1 or not len(ids):
            return []
        query = np.asarray(query, np.float32).reshape(-1)
        scores = np.empty(len(ids), np.float32)
        for start in range(0, len(ids), BLOCK_ROWS):
            block = rows[start : start + BLOCK_ROWS]
            scores[start : start + len(block)] = block.astype(np.float32) @ query
        return nearest_of(ids, scores, k)

    def _vectors(self, conn: Connection, model: str, project: str | None) -> tuple[Any, Any]:
        key = (model, project)
        if key not in self._read:
            if project is None:
                found = conn.execute(_EVERY, {"model": model}).all()
            else:
                found = conn.execute(_PROJECT, {"model": model, "project": project}).all()
            ids = np.fromiter((row[0] for row in found), np.int64, len(found))
            joined = b"".join(bytes(row[1]) for row in found)
            dims = len(found[0][1]) if found else 0
            self._read[key] = (ids, np.frombuffer(joined, np.int8).reshape(len(found), dims))
        return self._read[key]

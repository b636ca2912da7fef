"""An approximate index over the vectors, for a search of every project once exact search is too
slow (matrix.py builds it past APPROXIMATE_FROM_ROWS): faiss's HNSW graph over the vectors kept
as 8-bit codes (LINKS neighbours a vector; about 650 bytes a vector, under half the matrix's
float32), keyed by the turns' rowids. A search walks the graph for candidates; the matrix scores
them exactly, so a turn's score is the same as an exact search's, and only which turns are
looked at is approximate.

It lives in memory only and is never written to disk. faiss comes with the `meaning` extra;
where it cannot be imported, search stays exact.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

# Neighbours a vector links to, and how widely the build and a search look. On the sphinx set's
# real vectors (22,413 turns, 300 queries; bench.meaning_recall) 32 / 256 found 0.99 of the exact
# nearest 10 and 50, where 16 / 128 found 0.93 and 0.91, and faiss's inverted lists reading
# 15% of their lists 0.90 and 0.87.
LINKS = 32
BUILD_BREADTH = 40
SEARCH_BREADTH = 256
# Vectors the 8-bit codes' ranges are learned from.
TRAINING_ROWS = 20_000


class Approximate:
    def __init__(self, index: Any, model: str, ids: Any) -> None:
        self._index = index
        self.model = model
        self.ids = np.sort(ids)  # the rowids it holds, in order
        self.highest = int(self.ids[-1]) if len(ids) else -1  # rows above it are not in it
        self.count = len(ids)

    @classmethod
    def build(cls, ids: Any, rows: Any, model: str) -> Approximate | None:
        """An index over `rows` (float32, one vector a row) keyed by `ids`, or None where faiss
        is not installed or the build failed (logged)."""
        try:
            import faiss  # the meaning extra's
        except ImportError:
            return None
        try:
            faiss.omp_set_num_threads(1)  # searches and the build share two cores with the rest
            dims = rows.shape[1]
            codes: Any = faiss.ScalarQuantizer.QT_8bit  # faiss's hints say a ScalarQuantizer
            graph = faiss.IndexHNSWSQ(dims, codes, LINKS, faiss.METRIC_INNER_PRODUCT)
            graph.hnsw.efConstruction = BUILD_BREADTH
            graph.hnsw.efSearch = SEARCH_BREADTH
            step = max(1, len(rows) // TRAINING_ROWS)
            graph.train(np.ascontiguousarray(rows[::step]))
            index = faiss.IndexIDMap(graph)
            index.add_with_ids(rows, np.ascontiguousarray(ids, np.int64))
            return cls(index, model, ids)
        except Exception as exc:  # a search stays exact: never fail the caller for this
            log.warning("building the approximate vector index failed: %s", type(exc).__name__)
            return None

    def candidates(self, query: Any, k: int) -> Any:
        """The rowids of the `k` vectors this index finds nearest `query` (unordered)."""
        _scores, found = self._index.search(np.asarray(query, np.float32).reshape(1, -1), k)
        return found[0][found[0] >= 0]

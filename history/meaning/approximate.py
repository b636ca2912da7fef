"""An approximate index over the vectors, for a search of every project once exact search is too
slow (matrix.py builds it past APPROXIMATE_FROM_ROWS): faiss's inverted lists, the vectors
clustered around LISTS_PER_ROOT x sqrt(n) centroids, each kept as 8-bit codes (a quarter of the
matrix's float32). A search reads the lists of the centroids nearest the query (PROBED_SHARE of
them) and returns their best vectors as candidates; the matrix then scores the candidates
exactly, so a turn's score is the same as an exact search's, and only which turns are looked at
is approximate.

It lives in memory only, built from the matrix after each full load (so a forgotten turn's vector
leaves it as it leaves the matrix) and never written to disk. faiss comes with the `meaning`
extra; where it cannot be imported, search stays exact.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

LISTS_PER_ROOT = 1.0
# The share of the lists a search reads (at least LEAST_PROBES of them).
PROBED_SHARE = 0.04
LEAST_PROBES = 8
# Training samples per list (faiss's own minimum is 39).
SAMPLES_PER_LIST = 40


class Approximate:
    def __init__(self, index: Any, rows: int) -> None:
        self._index = index
        self.rows = rows

    @classmethod
    def build(cls, rows: Any) -> Approximate | None:
        """An index over `rows` (float32, one vector a row; positions are their ids), or None
        where faiss is not installed or the build failed (logged)."""
        try:
            import faiss  # the meaning extra's
        except ImportError:
            return None
        try:
            faiss.omp_set_num_threads(1)  # searches and the build share two cores with the rest
            n, dims = rows.shape
            lists = max(1, int(LISTS_PER_ROOT * math.sqrt(n)))
            index = faiss.IndexIVFScalarQuantizer(
                faiss.IndexFlatIP(dims),
                dims,
                lists,
                faiss.ScalarQuantizer.QT_8bit,
                faiss.METRIC_INNER_PRODUCT,
            )
            index.cp.max_points_per_centroid = SAMPLES_PER_LIST
            sample = np.random.default_rng(0).choice(n, min(n, SAMPLES_PER_LIST * lists), False)
            index.train(np.ascontiguousarray(rows[np.sort(sample)]))
            index.add(rows)
            index.nprobe = min(lists, max(LEAST_PROBES, math.ceil(PROBED_SHARE * lists)))
            return cls(index, n)
        except Exception as exc:  # a search stays exact: never fail the caller for this
            log.warning("building the approximate vector index failed: %s", type(exc).__name__)
            return None

    def candidates(self, query: Any, k: int) -> Any:
        """The positions of the `k` rows this index finds nearest `query` (int64, unordered)."""
        _scores, found = self._index.search(np.asarray(query, np.float32).reshape(1, -1), k)
        return found[0][found[0] >= 0]

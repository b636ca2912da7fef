"""A search blended with meaning: the lexical ranking's candidates and the nearest vectors',
fused (blend.py), the dense side's turns kept only where the lexical search would have looked
(the same project, days and retention: `keep`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from sqlalchemy import Engine, text

from history.domain import TURN_FIELDS, Hit, Turn
from history.meaning import blend, neighbours
from history.meaning.embedder import Embedder, default_embedder, default_model_id
from history.meaning.matrix import VectorMatrix
from history.meaning.scan import TableScan
from history.meaning.vectors import embed_all, waiting

Near = list[tuple[int, float]]  # rowids and cosines, nearest first
BESIDE_THREADS = 4


class MeaningSearch:
    def __init__(
        self,
        engine: Engine,
        embedder: Embedder | None,
        stored: Callable[[], bool],
        once: bool = False,
    ) -> None:
        """`stored`: whether some turn has a vector (the data port's `vectors_stored`); `once`:
        this process searches once or twice and exits (`recall search`), so the nearest
        vectors are read from the table (scan.py) instead of the whole matrix loaded first."""
        self.engine = engine
        self._embedder = embedder
        self._stored = stored
        self.matrix = VectorMatrix()
        self._scan = TableScan() if once else None
        self._in_server: bool | None = None  # the database finds the nearest (neighbours.py)
        # The query's embedding and nearest vectors, found while the lexical search runs (a
        # few threads: the service's searches come from several threads at once).
        self._beside = ThreadPoolExecutor(BESIDE_THREADS, thread_name_prefix="recall-meaning")

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def ready(self) -> bool:
        """Some turn has a vector."""
        return self._stored()

    @property
    def model_id(self) -> str:
        """The model whose vectors a search reads (named without loading it)."""
        return self._embedder.model_id if self._embedder is not None else default_model_id()

    def waiting(self) -> int:
        with self.engine.connect() as conn:
            return waiting(conn, self.model_id)

    def embed(self, progress: Callable[[int, int], None] | None = None, batch: int = 16) -> int:
        return embed_all(self.engine, self.embedder, batch, progress)

    def nearest(self, query: str, k: int = blend.CANDIDATES, project: str | None = None) -> Near:
        """The `k` turns nearest `query` (only `project`'s when given): rowids and cosines."""
        vector = self.embedder.embed([query])[0]
        with self.engine.connect() as conn:
            # A process that searches once asks the server's graphs rather than read the
            # vectors; one that keeps running searches its matrix, faster once loaded and exact
            # in one project (neighbours.py).
            if self._scan is not None:
                if self._in_server is None:
                    self._in_server = neighbours.held(conn)
                if self._in_server and len(vector) == neighbours.DIMENSIONS:
                    return neighbours.nearest(conn, self.model_id, vector, k, project)
                return self._scan.nearest(conn, self.model_id, vector, k, project)
            self.matrix.refresh(conn, self.model_id)
        return self.matrix.nearest(vector, k, project)

    def close(self) -> None:
        """Let the thread beside the lexical search go (a search under way finishes)."""
        self._beside.shutdown(wait=False)

    def nearest_soon(self, query: str, project: str | None = None) -> Future[Near]:
        """`nearest(query, project=project)`, started in a thread of its own: a search asks it
        before its lexical side, and `blended` waits for it."""
        return self._beside.submit(self.nearest, query, blend.CANDIDATES, project)

    def blended(
        self,
        query: str,
        lexical: Sequence[Hit],
        turns_by_row: Callable[[Sequence[int], str | None], dict[int, Turn]],
        keep: Callable[[Turn], bool],
        k: int,
        project: str | None = None,
        soon: Future[Near] | None = None,
    ) -> list[Hit]:
        """The best `k` of the lexical hits and the turns nearest `query` (in `project`, the
        stored key, when given), blended; `soon`: those turns, asked already."""
        near = soon.result() if soon is not None else self.nearest(query, project=project)
        rows = self._rows_of([hit.turn_id for hit in lexical], project)
        by_row = {rows[hit.turn_id]: hit for hit in lexical if hit.turn_id in rows}
        words = [(rows[hit.turn_id], hit.score) for hit in lexical if hit.turn_id in rows]
        near = blend.kept(near, by_row)  # only the turns the blend may keep are read
        missing = [row for row, _score in near if row not in by_row]
        turns = turns_by_row(missing, project) if missing else {}
        if len(turns) < len(missing):  # a vector whose turn is gone: reload the matrix
            self.matrix.stale()
        found: dict[int, Turn] = {**by_row, **{r: t for r, t in turns.items() if keep(t)}}
        meaning = [(row, score) for row, score in near if row in found]
        ranked = blend.blended(words, meaning, blend.WORDS_WEIGHT)[:k]
        return [_hit(found[row], score) for row, score in ranked]

    def _rows_of(self, turn_ids: list[str], project: str | None) -> dict[str, int]:
        """The rowids of the lexical hits (of `project`'s partition alone when it is given:
        planning over PostgreSQL's 64 cost ~6 ms)."""
        if not turn_ids:
            return {}
        marks = ", ".join(f":t{at}" for at in range(len(turn_ids)))
        values: dict[str, str] = {f"t{at}": t for at, t in enumerate(turn_ids)}
        sql = f"SELECT turn_id, id FROM turns WHERE turn_id IN ({marks})"
        if project is not None:
            sql, values["project"] = sql + " AND project = :project", project
        with self.engine.connect() as conn:
            found = conn.execute(text(sql), values)
            return {str(turn_id): int(row) for turn_id, row in found}


def _hit(turn: Turn, score: float) -> Hit:
    return Hit(**{name: getattr(turn, name) for name in TURN_FIELDS}, score=round(score, 6))

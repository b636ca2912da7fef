"""The in-memory matrix a search by meaning goes through gives exactly the nearest vectors a
plain computation over the stored table gives: everywhere, in one project, after turns are added
and after a forget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

from history import HistoryIndex  # noqa: E402
from history.meaning.embedder import DIMENSIONS, Embedder  # noqa: E402

PROJECTS = ("/work/app", "/work/site", "/work/tools")


class RandomVectors(Embedder):
    model_id = "random-unit"

    def __init__(self, seed: int = 3) -> None:
        self.rng = np.random.default_rng(seed)

    def embed(self, texts: Any) -> Any:
        rows = self.rng.standard_normal((len(texts), DIMENSIONS)).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def record(index: HistoryIndex, start: int, count: int) -> None:
    for n in range(start, start + count):
        index.record(
            turn_id=f"turn-{n}",
            session_id=f"session-{n}",
            project=PROJECTS[n % len(PROJECTS)],
            asked=f"question number {n}",
            answered="answer",
        )


def exact(index: HistoryIndex, query: Any, k: int, project: str | None) -> list[int]:
    """The `k` nearest rowids, computed plainly from every stored vector."""
    with index.meaning().engine.connect() as conn:
        found = conn.exec_driver_sql(
            "SELECT v.turn_id, t.project, v.vector FROM turn_vectors v"
            " JOIN turns t ON t.id = v.turn_id"
        ).all()
    scored = [
        (float(np.frombuffer(bytes(vector), np.int8).astype(np.float64) @ query), int(row))
        for row, where, vector in found
        if project is None or where == project
    ]
    return [row for _score, row in sorted(scored, reverse=True)[:k]]


def stored_project(index: HistoryIndex) -> str:
    """PROJECTS[0] as the store keeps it (turn-0's)."""
    with index.meaning().engine.connect() as conn:
        found = conn.exec_driver_sql("SELECT project FROM turns WHERE turn_id = 'turn-0'")
        return str(found.scalar_one())


def nearest(index: HistoryIndex, query: Any, k: int, project: str | None) -> list[int]:
    matrix = index.meaning().matrix
    with index.meaning().engine.connect() as conn:
        matrix.refresh(conn, index.meaning().model_id)
    return [row for row, _cosine in matrix.nearest(query, k, project)]


def test_the_nearest_vectors_are_the_exact_ones_everywhere_in_a_project_and_after_a_forget(
    tmp_path: Path,
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.meaning_search = True
    record(index, 0, 240)
    index.meaning(RandomVectors()).embed(batch=64)
    app = stored_project(index)
    queries = RandomVectors(seed=8).embed(["q"] * 4)
    for query in queries:
        assert nearest(index, query, 50, None) == exact(index, query, 50, None)
        in_app = nearest(index, query, 50, app)
        assert in_app == exact(index, query, 50, app)
        assert len(in_app) == 50, "a project's search gets its own 50 candidates"

    record(index, 240, 30)  # added since: read alone and appended
    index.meaning().embed(batch=64)
    for query in queries:
        assert nearest(index, query, 50, None) == exact(index, query, 50, None)
        assert nearest(index, query, 50, app) == exact(index, query, 50, app)

    query = queries[0]
    doomed = nearest(index, query, 1, None)[0]
    with index.meaning().engine.connect() as conn:
        session = conn.exec_driver_sql(
            "SELECT session_id FROM turns WHERE id = ?", (doomed,)
        ).scalar_one()
    assert index.forget_session(str(session)) == 1
    after = nearest(index, query, 50, None)
    assert doomed not in after
    assert after == exact(index, query, 50, None)


def test_a_project_without_vectors_finds_nothing_by_meaning(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 0, 12)
    index.meaning(RandomVectors()).embed()
    query = RandomVectors(seed=8).embed(["q"])[0]
    assert nearest(index, query, 50, "/nowhere") == []
    assert len(nearest(index, query, 50, None)) == 12

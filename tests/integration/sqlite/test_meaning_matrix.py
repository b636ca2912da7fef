"""The in-memory matrix a search by meaning goes through gives exactly the nearest vectors a
plain computation over the stored table gives: everywhere, in one project, after turns are added
and after a forget."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

from history import HistoryIndex  # noqa: E402
from history.meaning.approximate import Approximate  # noqa: E402
from history.meaning.embedder import DIMENSIONS, Embedder  # noqa: E402
from history.meaning.matrix import VectorMatrix  # noqa: E402

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


class ClusteredVectors(Embedder):
    """Vectors around a few centres, as sentence embeddings cluster by topic."""

    model_id = "clustered"

    def __init__(self, seed: int = 5, spread: float = 0.35) -> None:
        self.rng = np.random.default_rng(seed)
        self.centres = np.random.default_rng(1).standard_normal((6, DIMENSIONS))
        self.spread = spread

    def embed(self, texts: Any) -> Any:
        centre = self.centres[self.rng.integers(0, len(self.centres), len(texts))]
        rows = centre + self.spread * self.rng.standard_normal((len(texts), DIMENSIONS))
        rows = rows.astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def approximate_built(index: HistoryIndex, seconds: float = 30) -> bool:
    matrix = index.meaning().matrix
    with index.meaning().engine.connect() as conn:
        matrix.refresh(conn, index.meaning().model_id)
    deadline = time.monotonic() + seconds
    while not matrix.approximate and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(matrix.approximate)


def test_past_its_threshold_every_project_is_searched_through_the_approximate_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its candidates are scored exactly: on clustered vectors it finds the exact nearest ten,
    scores included; turns embedded after it was built are found too, and a forgotten turn
    leaves it with the matrix."""
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 0, 600)
    meaning = index.meaning(ClusteredVectors())
    meaning.matrix = VectorMatrix(approximate_from=300)
    meaning.embed(batch=200)
    assert approximate_built(index)
    queries = ClusteredVectors(seed=9, spread=0.2).embed(["q"] * 6)
    for query in queries:
        assert nearest(index, query, 10, None) == exact(index, query, 10, None)
    found = meaning.matrix.nearest(queries[0], 3)
    assert [round(cosine, 5) for _row, cosine in found] == [
        round(float(np.frombuffer(vector, np.int8) @ queries[0]) / 127, 5)
        for vector in stored_vectors(index, [row for row, _cosine in found])
    ]

    record(index, 600, 5)  # after the build: appended, searched exactly beside the index
    index.meaning().embed()
    assert meaning.matrix.approximate
    with meaning.engine.connect() as conn:
        newest = conn.exec_driver_sql("SELECT max(id) FROM turns").scalar_one()
    newest_vector = np.frombuffer(stored_vectors(index, [newest])[0], np.int8) / 127
    assert nearest(index, newest_vector, 1, None) == [newest]

    # Forgotten while the next build waits: the old index serves, and must neither bring back
    # the forgotten turns nor miss the rows it does not hold (the five above).
    gate = threading.Event()
    build = Approximate.build

    def held_back(ids: Any, rows: Any, model: str) -> Approximate | None:
        gate.wait(30)
        return build(ids, rows, model)

    monkeypatch.setattr(Approximate, "build", held_back)
    doomed = nearest(index, queries[1], 20, None)
    with meaning.engine.connect() as conn:
        sessions = conn.exec_driver_sql(
            f"SELECT session_id FROM turns WHERE id IN ({', '.join(map(str, doomed))})"
        ).scalars()
        assert index.forget_sessions([str(session) for session in sessions]) == 20
    assert approximate_built(index)
    for query in [*queries, newest_vector]:
        found = nearest(index, query, 10, None)
        assert not set(found) & set(doomed)
        assert found == exact(index, query, 10, None)
    gate.set()
    assert rebuilt(meaning.matrix, holding=585)  # without the forgotten turns' vectors
    assert nearest(index, queries[1], 10, None) == exact(index, queries[1], 10, None)
    index.close()


def rebuilt(matrix: VectorMatrix, holding: int, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        built = matrix._approximate
        if built is not None and built.count == holding:
            return True
        time.sleep(0.02)
    return False


def stored_vectors(index: HistoryIndex, rows: list[int]) -> list[bytes]:
    with index.meaning().engine.connect() as conn:
        return [
            bytes(
                conn.exec_driver_sql(
                    "SELECT vector FROM turn_vectors WHERE turn_id = ?", (row,)
                ).scalar_one()
            )
            for row in rows
        ]


def test_a_forgotten_turn_the_approximate_index_still_holds_is_never_found(
    tmp_path: Path,
) -> None:
    """Between a forget and the rebuild, the index still holds the forgotten turn's vector: the
    candidate is dropped, not taken for the turn stored beside it."""
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 0, 40)
    meaning = index.meaning(RandomVectors())
    meaning.embed()
    with meaning.engine.connect() as conn:
        rowids = [
            int(row) for row in conn.exec_driver_sql("SELECT id FROM turns ORDER BY id").scalars()
        ]
    doomed, beside = rowids[20], rowids[21]
    assert index.forget_session("session-20") == 1
    nearest(index, RandomVectors(seed=8).embed(["q"])[0], 1, None)  # a full load after the forget

    class StillHolding(Approximate):
        def candidates(self, query: Any, k: int) -> Any:
            return np.array([doomed, beside], np.int64)

    meaning.matrix._approximate = StillHolding(None, meaning.model_id, np.array(rowids))
    query = RandomVectors(seed=8).embed(["q"])[0]
    assert [row for row, _cosine in meaning.matrix.nearest(query, 5)] == [beside]
    index.close()


def test_the_approximate_index_is_rebuilt_when_the_turns_it_holds_changed_in_number_or_not(
    tmp_path: Path,
) -> None:
    """A forgotten turn and a turn re-embedded below its highest rowid leave the count it
    holds unchanged: it is still rebuilt (the old one held a forgotten vector and missed one)."""
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 0, 40)
    meaning = index.meaning(RandomVectors())
    meaning.matrix = VectorMatrix(approximate_from=10)
    meaning.embed()
    assert approximate_built(index)
    built = meaning.matrix._approximate
    assert built is not None
    held = built.ids.copy()
    held[5] = held[-1] + 1000  # one rowid it holds is not stored, one stored it does not hold
    meaning.matrix._approximate = Approximate(None, built.model, held)
    meaning.matrix.stale()
    stored = sorted(meaning.matrix.ids.tolist())

    def rebuilt_with_the_stored_rows() -> bool:
        found = meaning.matrix._approximate
        return found is not None and found.ids.tolist() == stored

    approximate_built(index)  # the full load after stale()
    deadline = time.monotonic() + 30
    while not rebuilt_with_the_stored_rows() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert rebuilt_with_the_stored_rows()
    index.close()


def test_rows_past_the_room_left_for_them_load_everything_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from history.meaning import matrix

    monkeypatch.setattr(matrix, "LEAST_ROOM", 8)
    monkeypatch.setattr(matrix, "ROOM_SHARE", 0.0)
    index = HistoryIndex.open(tmp_path / "history.db")
    record(index, 0, 60)
    meaning = index.meaning(RandomVectors())
    meaning.embed()
    app = stored_project(index)
    queries = RandomVectors(seed=8).embed(["q"] * 3)
    nearest(index, queries[0], 5, None)
    for start, count in [(60, 5), (65, 20)]:  # within the room, then past it
        record(index, start, count)
        meaning.embed()
        for query in queries:
            assert nearest(index, query, 30, None) == exact(index, query, 30, None)
            assert nearest(index, query, 30, app) == exact(index, query, 30, app)
        with meaning.engine.connect() as conn:
            stored = conn.exec_driver_sql("SELECT count(*) FROM turn_vectors").scalar_one()
        assert len(meaning.matrix.ids) == stored
    index.close()

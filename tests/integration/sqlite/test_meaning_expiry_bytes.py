"""An expiry of turns scattered among ones that stay leaves none of their vectors' bytes in the
file: the deletion rebalances turn_vectors' b-tree and moves cells between pages, leaving copies
in the pages they left that secure_delete does not zero, so the expiry empties the vectors in
place before it deletes any (history/store/sqlite/forgetting/blanking.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

from history import HistoryIndex  # noqa: E402
from history.importers.base import ImportedTurn  # noqa: E402
from history.meaning.embedder import DIMENSIONS, Embedder  # noqa: E402


class RandomVectors(Embedder):
    """A dense random unit vector a turn: its 384 bytes occur nowhere else."""

    model_id = "random-unit"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(17)

    def embed(self, texts: Any) -> Any:
        rows = self.rng.standard_normal((len(texts), DIMENSIONS)).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def turn(n: int, days_ago: int) -> ImportedTurn:
    return ImportedTurn(
        turn_id=f"turn-{n}",
        session_id=f"session-{n % 7}",
        project="/work/app",
        asked=f"question {n}",
        answered="answer",
        files=(),
        edited=(),
        tools=(),
        tainted=False,
        asked_at=datetime.now(UTC) - timedelta(days=days_ago),
    )


def file_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in directory.iterdir() if p.name.startswith("history.db"))


def test_expired_turns_scattered_among_kept_ones_leave_no_vector_bytes(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    # Three old turns to a new one, so their vectors share every page of turn_vectors and the
    # pages the expiry leaves are underfull (SQLite moves cells between them).
    index.record_many([turn(n, 400 + n if n % 4 else 1) for n in range(1200)])
    index.meaning(RandomVectors()).embed(batch=200)
    with index.meaning().engine.connect() as conn:
        old = conn.exec_driver_sql(
            "SELECT v.vector FROM turn_vectors v JOIN turns t ON t.id = v.turn_id"
            " WHERE t.asked_at < :when",
            {"when": (datetime.now(UTC) - timedelta(days=30)).isoformat()},
        )
        doomed = [bytes(vector) for (vector,) in old]
    assert len(doomed) == 900
    assert index.retain(30) == 900
    index.tidy()
    index.close()
    raw = file_bytes(tmp_path)
    left = [vector for vector in doomed if vector in raw]
    assert not left, f"{len(left)} of 900 expired turns' vectors are still in the file"

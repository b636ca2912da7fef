"""The WAL keeps the largest size it ever reached until it is cut, and cutting it costs by its
size with writers blocked (up to 175 ms at the end of a scrub): the upkeep's checkpoints cut it
to zero once it has grown past a bound and is all copied back, so the final cut stays small."""

from __future__ import annotations

from pathlib import Path

import pytest

from history import HistoryIndex
from history.store.sqlite.forgetting import checkpoints


def wal_size(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def fill(index: HistoryIndex) -> None:
    for n in range(40):
        index.record(
            turn_id=f"t-{n}",
            session_id="s",
            project="/work/trim",
            asked=f"question {n} " + "words " * 200,
            answered="answer " * 200,
        )


@pytest.mark.parametrize(("bound", "cut"), [(1, True), (1 << 40, False)])
def test_the_upkeeps_checkpoint_cuts_a_large_wal_once_copied_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: int, cut: bool
) -> None:
    path = tmp_path / "history.db"
    index = HistoryIndex.open(path)
    index._upkeep.close()
    fill(index)
    assert wal_size(path) > 0
    monkeypatch.setattr(checkpoints, "TRIM_BYTES", bound)
    index._maintenance._forgetting.checkpoint()  # type: ignore[attr-defined]
    assert (wal_size(path) == 0) is cut
    assert index.count("/work/trim") == 40
    index.close()

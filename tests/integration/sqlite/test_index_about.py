"""What an open index says of itself: where it is and its damaged copies, never an engine or a
backend for a face to branch on (tests/unit/test_faces_know_no_backend.py reads the imports)."""

from __future__ import annotations

from pathlib import Path

from history import HistoryIndex


def test_the_index_shows_no_engine_and_no_backend(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    try:
        assert not hasattr(index, "engine") and not hasattr(index, "backend")
        about = index.about()
        assert about.where == str(tmp_path / "history.db") and about.damaged_copies == ()
    finally:
        index.close()

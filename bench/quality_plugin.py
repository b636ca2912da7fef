"""The project's own search as a plug-in of the search-quality evaluator.

    python ../shared/quality/eval.py ../shared/quality/datasette \
        --method bench/quality_plugin.py:make_search [--max-words 4]
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from history import HistoryIndex
from history.importers.base import ImportedTurn


def make_search(data_dir: str) -> Callable[..., list[str]]:
    index = HistoryIndex.open(Path(tempfile.mkdtemp()) / "history.db")
    lines = Path(data_dir, "turns.jsonl").read_text(encoding="utf-8").splitlines()
    turns = []
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        turns.append(
            ImportedTurn(
                turn_id=t["turn_id"],
                session_id=t["session_id"],
                project=t["project"],
                asked=t["asked"],
                answered=t["answered"],
                files=tuple(t["files"]),
                edited=(),
                tools=(),
                tainted=False,
                asked_at=datetime.fromisoformat(t["asked_at"]),
            )
        )
    index.record_many(turns)

    def search(query: str, k: int, project: str | None = None) -> list[str]:
        return [hit.turn_id for hit in index.search(query, project=project, k=k)]

    return search

"""The project's own search as a plug-in of the search-quality evaluator.

    python ../shared/quality/eval.py ../shared/quality/datasette \
        --method bench/quality_plugin.py:make_search [--max-words 4]

`make_search_with_work` also gives each turn the work log bench.quality_work wrote for its set
(what its commit's diff added, as an agent's edits are logged), and the files it edited.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from history import HistoryIndex
from history.importers.base import ImportedTurn


def make_search_with_work(data_dir: str) -> Callable[..., list[str]]:
    from bench.quality_work import WORK_OUT

    work_file = WORK_OUT / f"{Path(data_dir).name}.jsonl"
    if not work_file.exists():
        raise SystemExit(f"error: no {work_file}: run python -m bench.quality_work first")
    lines = work_file.read_text(encoding="utf-8").splitlines()
    return make_search(data_dir, dict(json.loads(line).values() for line in lines if line))


def imported_turns(data_dir: str | Path, work: dict[str, str] | None = None) -> list[ImportedTurn]:
    """The set's turns as the importers hand them over; `work`: each turn's work log by turn id
    (None: the turns as they are, no work, nothing edited)."""
    lines = Path(data_dir, "turns.jsonl").read_text(encoding="utf-8").splitlines()
    turns = []
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        logged = {} if work is None else {"work": work.get(t["turn_id"], "")}
        edited = tuple(t["files"]) if work is not None else ()
        turns.append(
            ImportedTurn(
                turn_id=t["turn_id"],
                session_id=t["session_id"],
                project=t["project"],
                asked=t["asked"],
                answered=t["answered"],
                files=tuple(t["files"]),
                edited=edited,
                tools=(),
                tainted=False,
                asked_at=datetime.fromisoformat(t["asked_at"]),
                **logged,
            )
        )
    return turns


def make_search(data_dir: str, work: dict[str, str] | None = None) -> Callable[..., list[str]]:
    """`work`: each turn's work log by turn id (None: the set's turns as they are, no work)."""
    index = HistoryIndex.open(Path(tempfile.mkdtemp()) / "history.db")
    index.record_many(imported_turns(data_dir, work))

    def search(query: str, k: int, project: str | None = None) -> list[str]:
        return [hit.turn_id for hit in index.search(query, project=project, k=k)]

    return search

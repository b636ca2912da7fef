"""Opening what was found, at size: a turn, a 1,000-turn conversation, the turns around a turn,
a page of conversations, the projects. `HistoryIndex` against raw SQL on the baseline's
database, which has no summary rows: a list there is a GROUP BY over the turns, the query one
would write without them. The two run interleaved call by call."""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bench.baseline import Baseline
from bench.corpus import turns
from bench.measure import BASELINE, RECALL, Emitter, percentile
from history import HistoryIndex

LONG_SESSION = "bench-long-conversation"
LONG_TURNS = 1_000
PAGE = 50
_ROW = "turn_id, session_id, project, asked_at, tainted, asked, answered, files, edited, tools"
_SUMMARY = (
    "SELECT session_id, project, count(*), sum(tainted), min(asked_at), max(asked_at) AS last "
    "FROM turns {where} GROUP BY session_id, project "
    "ORDER BY last DESC, session_id DESC, project DESC LIMIT ?"
)
_PROJECTS = (
    "SELECT project, count(*), count(DISTINCT session_id), min(asked_at), max(asked_at) AS last "
    "FROM turns GROUP BY project ORDER BY last DESC, project"
)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _long_conversation(recall: HistoryIndex, baseline: Baseline, end: datetime) -> None:
    """A conversation of LONG_TURNS turns in both databases (once: a kept database has it)."""
    if recall.turn(f"{LONG_SESSION}-0") is not None:
        return
    generated = list(itertools.islice(turns(99, end), LONG_TURNS))
    made = [
        dataclasses.replace(
            turn,
            turn_id=f"{LONG_SESSION}-{n}",
            session_id=LONG_SESSION,
            project=generated[0].project,
        )
        for n, turn in enumerate(generated)
    ]
    recall.record_many(made)
    recall.tidy()
    baseline.begin()
    baseline.record_batch(made)
    baseline.commit()


def _timed(
    out: Emitter,
    metric: str,
    calls: list[tuple[Callable[[], Any], Callable[[], Any]]],
    percentiles: tuple[int, ...] = (50, 95),
) -> None:
    """Each (recall, baseline) pair called in turn, one after the other; the percentiles of each."""
    times: dict[str, list[float]] = {RECALL: [], BASELINE: []}
    for recall_call, baseline_call in calls:
        for impl, call in ((RECALL, recall_call), (BASELINE, baseline_call)):
            started = time.perf_counter()
            call()
            times[impl].append(_ms(started))
    for p in percentiles:
        for impl, sample in times.items():
            out.emit(f"{metric}_p{p}", impl, percentile(sample, p), "ms", n=len(sample))


def measure(out: Emitter, recall: HistoryIndex, baseline: Baseline, end: datetime) -> None:
    _long_conversation(recall, baseline, end)
    sql = baseline.conn
    sample = sql.execute(
        "SELECT turn_id, session_id FROM turns ORDER BY random() LIMIT 1000"
    ).fetchall()
    projects = [row[0] for row in sql.execute("SELECT DISTINCT project FROM turns")]

    def one_turn(turn_id: str) -> Callable[[], Any]:
        statement = f"SELECT {_ROW} FROM turns WHERE turn_id = ?"
        return lambda: sql.execute(statement, [turn_id]).fetchall()

    def turn(turn_id: str) -> Callable[[], Any]:
        return lambda: recall.turn(turn_id)

    _timed(out, "view_turn", [(turn(t), one_turn(t)) for t, _ in sample])

    def whole(session: str) -> Callable[[], Any]:
        statement = f"SELECT {_ROW} FROM turns WHERE session_id = ? ORDER BY asked_at, id"
        return lambda: sql.execute(statement, [session]).fetchall()

    long_calls = [(lambda: recall.conversation(LONG_SESSION), whole(LONG_SESSION))] * 30
    _timed(out, "view_conversation_1000", long_calls)

    def around(turn_id: str, session: str) -> Callable[[], Any]:
        return lambda: recall.conversation(session, around=turn_id, radius=2)

    _timed(out, "view_conversation_around", [(around(t, s), whole(s)) for t, s in sample[:200]])

    def page(project: str | None) -> Callable[[], Any]:
        where, params = ("WHERE project = ?", [project]) if project else ("", [])
        statement = _SUMMARY.format(where=where)
        return lambda: sql.execute(statement, [*params, PAGE]).fetchall()

    first_pages = [(lambda: recall.conversations(limit=PAGE), page(None))] * 5

    def first_page(project: str) -> Callable[[], Any]:
        return lambda: recall.conversations(project, limit=PAGE)

    first_pages += [(first_page(p), page(p)) for p in projects]
    _timed(out, "view_conversations_first_page", first_pages)
    deep: list[float] = []
    before = None
    for _ in range(40):  # up to 2,000 conversations down
        started = time.perf_counter()
        found = recall.conversations(limit=PAGE, before=before)
        deep.append(_ms(started))
        if len(found) < PAGE:
            break
        before = found[-1].cursor
    for p in (50, 95):
        metric = f"view_conversations_next_pages_p{p}"
        out.emit(metric, RECALL, percentile(deep, p), "ms", n=len(deep))
    projects_calls = [(recall.projects, lambda: sql.execute(_PROJECTS).fetchall())] * 10
    _timed(out, "view_projects", projects_calls)

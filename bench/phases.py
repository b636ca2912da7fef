"""The measurements made on both filled databases in one process, the two interleaved call by
call so that whatever else the machine is doing weighs on both alike (search excepted: see
`search`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from bench.baseline import Baseline, best_of, match_expression
from bench.corpus import GeneratedTurn, Query
from bench.measure import BASELINE, CORPUS, RECALL, Emitter, database_bytes, percentile, warn
from history import HistoryIndex
from history.ranking import EXACT_FORM_BONUS, exact_form_bonus, idf
from history.store.sqlite.fts import indexed_rows
from tests.helpers.engines import engine_of
from tests.helpers.oracle import shipped_ranking

WARM_UP = 20


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def record_latency(
    out: Emitter, recall: HistoryIndex, baseline: Baseline, extra: Sequence[GeneratedTurn]
) -> None:
    """One turn per commit, as a live agent records: `record` against a plain INSERT."""
    recall.tidy()  # what earlier writes left: `upkeep_after_records` counts these records' own
    times: dict[str, list[float]] = {RECALL: [], BASELINE: []}
    for number, turn in enumerate(extra):
        values: dict[str, Any] = {f.name: getattr(turn, f.name) for f in fields(turn)}
        started = time.perf_counter()
        if not recall.record(**values):
            warn(f"record failed for {turn.turn_id}")
        recall_ms = _ms(started)
        started = time.perf_counter()
        baseline.record(turn)
        baseline_ms = _ms(started)
        if number >= WARM_UP:
            times[RECALL].append(recall_ms)
            times[BASELINE].append(baseline_ms)
    for p in (50, 99):
        for impl, sample in times.items():
            out.emit(f"record_p{p}", impl, percentile(sample, p), "ms", n=len(sample))
    for impl, sample in times.items():
        out.emit("record_throughput", impl, len(sample) / (sum(sample) / 1000), "turns/s")
    # What the records left for upkeep (merging, checkpointing), done now rather than by the
    # thread during the next phase.
    started = time.perf_counter()
    recall.tidy()
    upkeep_ms = _ms(started)
    out.emit("upkeep_after_records", RECALL, upkeep_ms, "ms", n=len(extra))
    recall_ms = sum(times[RECALL]) + upkeep_ms
    out.emit(
        "record_throughput_with_upkeep", RECALL, len(times[RECALL]) / (recall_ms / 1000), "turns/s"
    )


def bytes_per_turn(
    out: Emitter, recall: HistoryIndex, recall_db: Path, baseline: Baseline, turns: int
) -> None:
    """File bytes (database and WAL, after a checkpoint) over the turns stored."""
    raw = engine_of(recall).raw_connection()
    try:
        raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        raw.close()
    baseline.checkpoint()
    out.emit("bytes_per_turn", RECALL, database_bytes(recall_db) / turns, "B")
    out.emit("bytes_per_turn", BASELINE, database_bytes(baseline.path) / turns, "B")


def search(
    out: Emitter,
    recall: HistoryIndex,
    baseline: Baseline,
    queries: Sequence[Query],
    files: dict[str, Path],
    k: int = 5,
    yardsticks: Mapping[str, Callable[[Query, str | None], list[str]]] | None = None,
) -> dict[tuple[str, str], list[list[str]]]:
    """Search p50/p95, every project and project-scoped. Returns each implementation's turn ids
    per scope, per query.

    `yardsticks`: other engines searched the same way (their index's files in `files` too); for
    each, every figure of recall and of the baseline is also emitted as a ratio to its own, as
    the impl `recall/<name>` or `baseline/<name>`.

    Unlike the other phases, each implementation runs all its queries in a block, from a page
    cache warmed by reading its database (`files`) through: on this machine the file cache holds
    about 4 GB and idle pages are reclaimed within minutes, and the naive baseline reads hundreds
    of MB of postings per query, so interleaved, each ran from a cache the other had emptied.
    `search_{scope}_approximate`: the share of recall's searches that said they were cut short."""
    cut_short: list[bool] = []

    def recall_search(query: Query, project: str | None) -> list[str]:
        hits = recall.search(query.text, project=project, k=k)
        cut_short.append(hits.approximate)
        return [hit.turn_id for hit in hits]

    searches: dict[str, Callable[[Query, str | None], list[str]]] = {
        RECALL: recall_search,
        BASELINE: lambda query, project: [
            row[0] for row in baseline.search(query.terms, project=project, k=k)
        ],
        **(yardsticks or {}),
    }
    figures: dict[tuple[str, str], float] = {}
    found: dict[tuple[str, str], list[list[str]]] = {}
    for scope in ("every", "project"):
        for impl, run in searches.items():
            _read_through(files[impl])
            for query in queries[:5]:  # the statement caches
                run(query, None)
            times = []
            for query in queries:
                started = time.perf_counter()
                found.setdefault((scope, impl), []).append(
                    run(query, query.project if scope == "project" else None)
                )
                times.append(_ms(started))
            for p in (50, 95):
                figures[(f"search_{scope}_p{p}", impl)] = percentile(times, p)
                out.emit(f"search_{scope}_p{p}", impl, percentile(times, p), "ms", k=k)
        timed = cut_short[-len(queries) :]
        out.emit(f"search_{scope}_approximate", RECALL, sum(timed) / len(timed), "share")
    _ratios_to(out, figures, tuple(yardsticks or ()))
    return found


def _ratios_to(
    out: Emitter, figures: Mapping[tuple[str, str], float], yardsticks: Sequence[str]
) -> None:
    for name in yardsticks:
        for (metric, impl), value in figures.items():
            if impl in (RECALL, BASELINE) and figures[(metric, name)] > 0:
                out.emit(metric, f"{impl}/{name}", value / figures[(metric, name)], "x")


def _read_through(path: Path) -> None:
    """A database file, or every file of an index directory."""
    for each in sorted(path.rglob("*")) if path.is_dir() else [path]:
        if each.is_file():
            with each.open("rb") as stream:
                while stream.read(1 << 20):
                    pass


def fidelity(
    out: Emitter,
    recall: HistoryIndex,
    baseline: Baseline,
    queries: Sequence[Query],
    found: dict[tuple[str, str], list[list[str]]],
    k: int = 5,
) -> None:
    """Top-k overlap of each implementation's results with the exhaustive ranking of its own
    database (its bm25 applied to every matching turn, ties to the newer turn), averaged over
    the queries. A query nothing matches counts 1 when the implementation also returns nothing.
    A yardstick in `found` is compared with recall's exhaustive ranking."""
    for scope in ("every", "project"):
        overlaps: dict[str, list[float]] = {impl: [] for s, impl in found if s == scope}
        matches = []
        for number, query in enumerate(queries):
            project = query.project if scope == "project" else None
            best, matched = baseline.exhaustive(query.terms, project, k)
            exhaustive = recall_exhaustive(recall, query.terms, project, k)
            references = {impl: exhaustive for impl in overlaps} | {BASELINE: best}
            matches.append(matched)
            for impl, sample in overlaps.items():
                got, reference = set(found[(scope, impl)][number]), references[impl]
                sample.append(
                    len(got & set(reference)) / len(reference) if reference else float(not got)
                )
        for impl, sample in overlaps.items():
            out.emit(f"top{k}_overlap_{scope}", impl, sum(sample) / len(sample), "share")
        out.emit(f"matching_turns_{scope}_mean", CORPUS, sum(matches) / len(matches), "turns")
        out.emit(f"matching_turns_{scope}_p95", CORPUS, percentile(matches, 95), "turns")


def recall_exhaustive(
    recall: HistoryIndex, terms: Sequence[str], project: str | None, k: int
) -> list[str]:
    """recall's scoring of every matching turn in its database: bm25 weighing asked, answered,
    files and work 3, 1, 1, 0.5 and the project tag column 0, plus the exact-form bonus (0.5 x
    idf for each query word held in the form typed, the work's text included). The top `k` turn
    ids. The ranking function, and how it counts a word's turns, are the search's
    (tests.helpers.oracle.shipped_ranking). The bonus is bounded, so it is computed only for
    turns whose bm25 comes within that bound of the k-th best."""
    with engine_of(recall).connect() as conn:
        function, counted = shipped_ranking(conn)
        sql = (
            f"SELECT t.id, t.asked_at, t.turn_id, {function} FROM turns_fts "
            "CROSS JOIN turns t ON t.id = turns_fts.rowid WHERE turns_fts MATCH :match"
            + (" AND t.project = :project" if project is not None else "")
        )
        params = {"match": match_expression(terms), "project": project}
        count = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :match"
        rows = [list(row) for row in conn.exec_driver_sql(sql, params)]
        indexed = indexed_rows(conn)
        term_idf = {
            term: idf(
                indexed,
                conn.exec_driver_sql(
                    count, {"match": counted + match_expression([term])}
                ).scalar_one(),
            )
            for term in terms
        }
        if len(rows) > k:
            bar = sorted(row[3] for row in rows)[k - 1]  # bm25 is negated: lower is better
            reach = bar + EXACT_FORM_BONUS * sum(term_idf.values())
            near = {row[0]: row for row in rows if row[3] <= reach}
        else:
            near = {row[0]: row for row in rows}
        texts = "SELECT id, asked, answered, files, work FROM turns WHERE id = :id"
        for rowid, row in near.items():
            _, *text = conn.exec_driver_sql(texts, {"id": rowid}).one()
            row[3] -= exact_form_bonus(terms, text, term_idf)
    return best_of([tuple(row) for row in rows], k)


def forget(out: Emitter, recall: HistoryIndex, baseline: Baseline, project: str) -> None:
    """Forget five ~30-turn sessions one by one, then a whole project."""
    sessions = baseline.conn.execute(
        "SELECT session_id, count(*) AS n FROM turns GROUP BY session_id "
        "ORDER BY abs(n - 30), session_id LIMIT 5"
    ).fetchall()
    times: dict[str, list[float]] = {RECALL: [], BASELINE: []}
    for session_id, _ in sessions:
        started = time.perf_counter()
        recall.forget_session(session_id)
        times[RECALL].append(_ms(started))
        started = time.perf_counter()
        baseline.forget_session(session_id)
        times[BASELINE].append(_ms(started))
    turns = sum(n for _, n in sessions) / len(sessions)
    for impl, sample in times.items():
        out.emit("forget_session", impl, percentile(sample, 50), "ms", turns=turns)
    started = time.perf_counter()
    removed = recall.forget_project(project)
    out.emit("forget_project", RECALL, _ms(started), "ms", turns=removed)
    started = time.perf_counter()
    removed = baseline.forget_project(project)
    out.emit("forget_project", BASELINE, _ms(started), "ms", turns=removed)

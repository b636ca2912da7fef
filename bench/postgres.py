"""The benchmark on PostgreSQL: search (fast path and the naive query side by side), top-5
overlap, record latency and forgetting, on a database `bench.importer` filled.

    python -m bench.importer recall SIZE --db postgresql+psycopg://root@127.0.0.1/recall_bench
    python -m bench.postgres --url postgresql+psycopg://root@127.0.0.1/recall_bench --size SIZE

The naive query ranks every turn matching any query word by the same score (each word's idf
times its ts_rank), then keeps the best five: the reference the fast path's top 5 is compared
with. `--phases import` adds turns (`record_many` in batches) and `--phases forget` removes
them: run them last, or on a copy (`createdb -T`).
Every number is one JSON line (`{"size", "metric", "impl", "value", "unit"}`), impl `recall`
(the project's search) or `naive`.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any

from sqlalchemy import text

from bench.corpus import Query, default_end, queries, turns
from bench.measure import RECALL, Emitter, percentile
from bench.mixes import turns as mix_turns
from history import HistoryIndex
from history.query import terms as query_terms
from history.ranking import idf
from history.store.postgres import schema, search
from history.store.postgres.repository import PostgresTurnRepository
from tests.helpers.engines import engine_of

NAIVE = "naive"
FORGOTTEN_PROJECT = "/home/dev/proj-10"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def naive(index: HistoryIndex, words: Sequence[str], project: str | None, k: int) -> list[str]:
    """Every matching turn ranked by the fast path's own score, then LIMIT k."""
    repository = index._repository
    assert isinstance(repository, PostgresTurnRepository) and engine_of(index) is not None
    with engine_of(index).connect() as conn:
        rows, frequency = repository._search.counts.rows_and_counts(conn, words)
        params: dict[str, Any] = {"k": k}
        for n, word in enumerate(words):
            params[f"w{n}"] = word
            params[f"i{n}"] = idf(max(rows, 1), frequency[word])
        where = f"{schema.VECTOR_COLUMN} @@ ({search.any_of(range(len(words)))})"
        if project is not None:
            where += f" AND {schema.VECTOR_COLUMN} @@ CAST(:tag AS tsquery)"
            params["tag"] = schema.project_tag(project)
        sql = (
            f"SELECT turn_id FROM turns WHERE {where} ORDER BY "
            f"{search.score_expression(len(words))} DESC, asked_at DESC LIMIT :k"
        )
        return [str(turn_id) for (turn_id,) in conn.execute(text(sql), params)]


def search_phase(out: Emitter, index: HistoryIndex, sample: Sequence[Query], k: int = 5) -> None:
    for scope in ("every", "project"):
        found: dict[str, list[list[str]]] = {RECALL: [], NAIVE: []}
        times: dict[str, list[float]] = {RECALL: [], NAIVE: []}
        cut_short = 0
        for query in sample[:5]:  # warm the statement caches and the word counts
            index.search(query.text, project=None, k=k)
        for query in sample:
            project = query.project if scope == "project" else None
            started = time.perf_counter()
            result = index.search(query.text, project, k=k)
            times[RECALL].append(_ms(started))
            found[RECALL].append([h.turn_id for h in result])
            cut_short += result.approximate
        # Apart: each naive query reads every matching row, pages the searches would then read
        # back from disk.
        for query in sample:
            project = query.project if scope == "project" else None
            started = time.perf_counter()
            found[NAIVE].append(naive(index, query_terms(query.text), project, k))
            times[NAIVE].append(_ms(started))
        for impl, sample_times in times.items():
            for p in (50, 95):
                out.emit(f"search_{scope}_p{p}", impl, percentile(sample_times, p), "ms", k=k)
        overlaps = [
            len(set(got) & set(want)) / len(want) if want else float(not got)
            for got, want in zip(found[RECALL], found[NAIVE], strict=True)
        ]
        out.emit(f"top{k}_overlap_{scope}", RECALL, sum(overlaps) / len(overlaps), "share")
        out.emit(f"approximate_{scope}", RECALL, cut_short / len(sample), "share")


def record_phase(out: Emitter, index: HistoryIndex, count: int, seed: int) -> None:
    extra = itertools.islice(turns(seed + 1000), count)
    times = []
    for turn in extra:
        values = {f.name: getattr(turn, f.name) for f in fields(turn)}
        values["turn_id"] = f"bench-record-{values['turn_id']}"
        started = time.perf_counter()
        index.record(**values)
        times.append(_ms(started))
    for p in (50, 99):
        out.emit(f"record_p{p}", RECALL, percentile(times[20:], p), "ms", n=len(times) - 20)
    started = time.perf_counter()
    index.tidy()
    out.emit("upkeep_after_records", RECALL, _ms(started), "ms", n=count)


def import_phase(out: Emitter, index: HistoryIndex, count: int, seed: int, batch: int) -> None:
    """`record_many` in batches into the database as it is (at 1M: a 1M-sized one), then the
    upkeep it leaves; the clock covers the writes only, as bench.importer's does."""
    stream = mix_turns("standard", seed + 2000, default_end())
    writing, written = 0.0, 0
    while written < count:
        chunk = [
            replace(turn, turn_id=f"bench-import-{turn.turn_id}")
            for turn in itertools.islice(stream, min(batch, count - written))
        ]
        started = time.perf_counter()
        stored = index.record_many(chunk)
        writing += time.perf_counter() - started
        written += stored.new
    started = time.perf_counter()
    index.tidy()
    upkeep = time.perf_counter() - started
    out.emit("bulk_import", RECALL, written / (writing + upkeep), "turns/s", batch=batch)
    out.emit("upkeep_after_import", RECALL, upkeep * 1000, "ms", n=written)


def forget_phase(out: Emitter, index: HistoryIndex, what: Sequence[str]) -> None:
    """A ~30-turn session, then a whole project; the rewrite (the scrub) timed apart."""
    with engine_of(index).connect() as conn:
        session = conn.execute(
            text(
                "SELECT session_id, count(*) FROM turns GROUP BY session_id"
                " ORDER BY abs(count(*) - 30), session_id LIMIT 1"
            )
        ).one()
    repository = index._repository
    assert isinstance(repository, PostgresTurnRepository)
    forgets: dict[str, Callable[[], int]] = {
        "session": lambda: repository.delete_sessions([session[0]]),
        "project": lambda: repository.delete_project(FORGOTTEN_PROJECT),
    }
    for name in what:
        forget = forgets[name]
        started = time.perf_counter()
        removed = forget()
        out.emit(f"forget_{name}", RECALL, _ms(started), "ms", turns=removed)
        started = time.perf_counter()
        scrubbed = index._maintenance.scrub(None) == "done"
        out.emit(f"forget_{name}_scrub", RECALL, _ms(started), "ms", done=scrubbed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.postgres", description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--size", type=int, required=True, help="the turns the database holds")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--import-turns", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument(
        "--forget", nargs="+", choices=("session", "project"), default=["session", "project"]
    )
    parser.add_argument(
        "--phases",
        nargs="+",
        choices=("search", "record", "import", "forget"),
        default=["search", "record"],
    )
    args = parser.parse_args(argv)
    out = Emitter(args.size)
    index = HistoryIndex.open(args.url)
    if "search" in args.phases:
        search_phase(out, index, queries(args.queries, args.seed))
    if "record" in args.phases:
        record_phase(out, index, args.records, args.seed)
    if "import" in args.phases:
        import_phase(out, index, args.import_turns, args.seed, args.batch)
    if "forget" in args.phases:
        forget_phase(out, index, args.forget)
    index.close()


if __name__ == "__main__":
    main()

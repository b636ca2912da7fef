"""A forget on PostgreSQL while other processes record and search: nobody waits long, no turn is
lost, and the forgotten text leaves the files of `turns` soon.

    python -m bench.pg_forget_load --url postgresql+psycopg://root@127.0.0.1/DB --size N
        [--recorders 4] [--searchers 4] [--every 0.2] [--quiet 30] [--session-turns 30]
        [--project-turns 40000]

On a database `bench.pg_load` filled: searchers alone first (the quiet p50/p95, every project and
one project alternating), then recorders (each a turn every `--every` seconds, into projects
other than the forgotten ones) and searchers together while this process forgets a conversation
of about `--session-turns` turns, then a project of about `--project-turns` (three canary turns
recorded into each before). After each forget it runs the owed scrub until done and then looks
for the canaries in the files of every partition of `turns`, its TOAST tables and their indexes.
At the end every turn a recorder said it stored is looked for in the database.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event
from typing import Any

from sqlalchemy import text

from bench.corpus import queries
from bench.measure import RECALL, Emitter, percentile
from history import HistoryIndex
from tests.helpers.engines import engine_of

CANARY = "pgforgetcanary"
# The conversation nearest the size asked for in the largest project: its partition is the
# longest to rewrite.
_SESSION = text(
    "SELECT c.session_id, c.project FROM conversations c JOIN projects p USING (project)"
    " ORDER BY abs(c.turns - :turns), p.turns DESC, c.session_id LIMIT 1"
)
_PROJECT = text("SELECT project FROM projects ORDER BY abs(turns - :turns), project LIMIT 1")
_PROJECTS = text("SELECT project FROM projects ORDER BY project")
_STORED = text("SELECT count(*) FROM turn_ids WHERE turn_id = ANY(CAST(:ids AS varchar[]))")


def _going_on(stop: Event) -> bool:
    """Until told to stop, or until the process that started this one is gone (a killed test
    run would otherwise leave its workers recording and searching for good)."""
    parent = multiprocessing.parent_process()
    return not stop.is_set() and (parent is None or parent.is_alive())


def _record(url: str, n: int, projects: Sequence[str], every: float, stop: Event, out: Any) -> None:
    index = HistoryIndex.open(url)
    stored: list[str] = []
    failed, spooled, times = 0, 0, []
    i = 0
    next_at = time.monotonic()
    while _going_on(stop):
        turn_id = f"live-{n}-{i}"
        project = projects[(n + i) % len(projects)]
        started = time.perf_counter()
        said = index.record_outcome(
            turn_id=turn_id,
            session_id=f"live-{n}-{i // 20}",
            project=project,
            asked=f"how does the recorder {n} keep turn {i} of its run",
            answered="it records one turn every fifth of a second",
        )
        times.append((time.perf_counter() - started) * 1000)
        if said is None:
            failed += 1
        else:
            stored.append(turn_id)
            spooled += said == "spooled"
        i += 1
        next_at += every
        time.sleep(max(0.0, next_at - time.monotonic()))
    index.close()
    if not stop.is_set():
        return  # the parent is gone: no one is left to read it
    out.put(
        {"kind": "record", "stored": stored, "failed": failed, "spooled": spooled, "times": times}
    )


def _search(url: str, n: int, stop: Event, out: Any) -> None:
    index = HistoryIndex.open(url)
    sample = queries(200, seed=7 + n)
    for query in sample[:5]:
        index.search(query.text, project=None)
    times: dict[str, list[float]] = {"every": [], "project": []}
    at: dict[str, list[float]] = {"every": [], "project": []}
    i, failed = 0, 0
    while _going_on(stop):
        query = sample[i % len(sample)]
        scope = "every" if i % 2 == 0 else "project"
        at[scope].append(time.time())
        started = time.perf_counter()
        try:
            index.search(query.text, project=None if scope == "every" else query.project)
        except Exception:  # counted apart, the time kept
            failed += 1
        times[scope].append((time.perf_counter() - started) * 1000)
        i += 1
    index.close()
    if not stop.is_set():
        return
    out.put({"kind": "search", "times": times, "at": at, "failed": failed})


@dataclass
class Run:
    """What the workers said."""

    stored: list[str] = field(default_factory=list)
    failed: int = 0
    lost: int = 0
    spooled: int = 0
    searches_failed: int = 0
    record_ms: list[float] = field(default_factory=list)
    search_ms: dict[str, list[float]] = field(default_factory=lambda: {"every": [], "project": []})
    # When each search began (wall clock), beside search_ms.
    search_at: dict[str, list[float]] = field(default_factory=lambda: {"every": [], "project": []})

    def during(self, scope: str, start: float, end: float) -> list[float]:
        """The times of the searches of `scope` that began between `start` and `end`."""
        pairs = zip(self.search_at[scope], self.search_ms[scope], strict=True)
        return [ms for at, ms in pairs if start <= at < end]

    def add(self, said: dict[str, Any]) -> None:
        if said["kind"] == "record":
            self.stored += said["stored"]
            self.failed += said["failed"]
            self.spooled += said["spooled"]
            self.record_ms += said["times"]
        else:
            self.searches_failed += said["failed"]
            for scope, times in said["times"].items():
                self.search_ms[scope] += times
                self.search_at[scope] += said["at"][scope]


class Workers:
    def __init__(self, url: str) -> None:
        self.url = url
        self.context = multiprocessing.get_context("spawn")
        self.stop = self.context.Event()
        self.out = self.context.Queue()
        self.processes: list[Any] = []

    def searchers(self, count: int) -> None:
        for n in range(count):
            self._start(_search, (self.url, n, self.stop, self.out))

    def recorders(self, count: int, projects: Sequence[str], every: float) -> None:
        for n in range(count):
            self._start(_record, (self.url, n, list(projects), every, self.stop, self.out))

    def _start(self, target: Any, args: tuple[Any, ...]) -> None:
        process = self.context.Process(target=target, args=args)
        process.start()
        self.processes.append(process)

    def finish(self) -> Run:
        self.stop.set()
        run = Run()
        for _ in self.processes:
            run.add(self.out.get(timeout=600))
        for process in self.processes:
            process.join(timeout=60)
        return run


@dataclass
class Forgotten:
    what: str
    turns: int
    forget_s: float
    scrubbed_s: float
    gone: bool
    # Wall clock: the forget began, its delete committed, the scrub was done.
    began: float = 0.0
    deleted: float = 0.0
    done: float = 0.0


def _canaries(index: HistoryIndex, session_id: str, project: str, tag: str) -> None:
    for n in range(3):
        index.record(
            turn_id=f"canary-{tag}-{n}",
            session_id=session_id,
            project=project,
            asked=f"the {CANARY}{tag} plan, part {n}",
            answered=f"kept under {CANARY}{tag}",
        )


def _forget(index: HistoryIndex, what: str, forget: Any, bytes_of: Any, limit: float) -> Forgotten:
    from history.store.postgres.repository import PostgresTurnRepository

    repository = index._repository
    assert isinstance(repository, PostgresTurnRepository)
    began = time.time()
    started = time.monotonic()
    removed = forget()
    forgot = time.monotonic() - started
    deleted = time.time()
    while repository._scrub.pending() and time.monotonic() - started < limit:
        if not repository._scrub.run():
            time.sleep(0.2)
    scrubbed = time.monotonic() - started
    done = time.time()
    gone = not bytes_of(f"{CANARY}{what}".encode())
    return Forgotten(what, removed, forgot, scrubbed, gone, began, deleted, done)


def run(
    url: str,
    recorders: int = 4,
    searchers: int = 4,
    every: float = 0.2,
    quiet: float = 30.0,
    session_turns: int = 30,
    project_turns: int = 40_000,
    settle: float = 5.0,
    limits: tuple[float, float] = (60.0, 600.0),
) -> tuple[Run, Run, list[Forgotten]]:
    """The quiet searches, the loaded run and the two forgets."""
    from tests.helpers.pg_files import occurrences

    def found(needle: bytes) -> bool:
        """Whether `needle` is in a file of `turns`."""
        return occurrences(full_url, needle, at_most=1) > 0

    index = HistoryIndex.open(url)
    engine = engine_of(index)
    full_url = engine.url.render_as_string(hide_password=False)
    with engine.connect() as conn:
        session_id, session_project = conn.execute(_SESSION, {"turns": session_turns}).one()
        project = conn.execute(_PROJECT, {"turns": project_turns}).scalar_one()
        if project == session_project:
            project = conn.execute(_PROJECT, {"turns": project_turns // 2}).scalar_one()
        # Members go on recording in every project but the one forgotten (the forgotten
        # conversation's own project too).
        others = [p for p in conn.execute(_PROJECTS).scalars() if p != project]
    _canaries(index, session_id, session_project, "session")
    _canaries(index, f"canary-{CANARY}", project, "project")
    index.tidy()
    quiet_workers = Workers(url)
    quiet_workers.searchers(searchers)
    time.sleep(quiet)
    quiet_run = quiet_workers.finish()
    loaded = Workers(url)
    loaded.recorders(recorders, others, every)
    loaded.searchers(searchers)
    time.sleep(settle)
    forgotten = [
        _forget(
            index,
            "session",
            lambda: index.forget_session(session_id),
            found,
            limits[0],
        ),
        _forget(
            index,
            "project",
            lambda: index.forget_project(project),
            found,
            limits[1],
        ),
    ]
    time.sleep(settle)
    loaded_run = loaded.finish()
    index.tidy()  # moves in the live turns still waiting beside a rewritten partition
    with engine.connect() as conn:
        present = int(conn.execute(_STORED, {"ids": loaded_run.stored}).scalar_one())
    loaded_run.lost = len(loaded_run.stored) - present
    index.close()
    return quiet_run, loaded_run, forgotten


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_forget_load", description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--size", type=int, required=True, help="the turns the database holds")
    parser.add_argument("--recorders", type=int, default=4)
    parser.add_argument("--searchers", type=int, default=4)
    parser.add_argument("--every", type=float, default=0.2)
    parser.add_argument("--quiet", type=float, default=30.0)
    parser.add_argument("--session-turns", type=int, default=30)
    parser.add_argument("--project-turns", type=int, default=40_000)
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds of recording before the forgets"
    )
    args = parser.parse_args(argv)
    out = Emitter(args.size)
    quiet, loaded, forgotten = run(
        args.url,
        args.recorders,
        args.searchers,
        args.every,
        args.quiet,
        args.session_turns,
        args.project_turns,
        args.settle,
    )
    for name, ran in (("quiet", quiet), ("loaded", loaded)):
        for scope, times in ran.search_ms.items():
            for p in (50, 95, 99, 100):
                value = percentile(times, p) if times else 0.0
                out.emit(f"search_{scope}_p{p}_{name}", RECALL, value, "ms", n=len(times))
    out.emit("records_failed", RECALL, loaded.failed, "turns")
    out.emit("searches_failed", RECALL, loaded.searches_failed, "searches")
    out.emit("records_waited_beside", RECALL, loaded.spooled, "turns")
    out.emit("records_lost", RECALL, loaded.lost, "turns", stored=len(loaded.stored))
    for p in (50, 99, 100):
        value = percentile(loaded.record_ms, p) if loaded.record_ms else 0.0
        out.emit(f"record_p{p}", RECALL, value, "ms", n=len(loaded.record_ms))
    for f in forgotten:
        out.emit(f"forget_{f.what}", RECALL, f.forget_s, "s", turns=f.turns)
        out.emit(f"forget_{f.what}_scrubbed", RECALL, f.scrubbed_s, "s", gone=f.gone)
    _windows(out, loaded, forgotten, args.settle)


def _windows(out: Emitter, loaded: Run, forgotten: Sequence[Forgotten], settle: float) -> None:
    """Search p50/p95 while recording only (the `settle` seconds before the first forget), then
    during each forget's delete and during its scrub."""
    windows = [("recording", forgotten[0].began - settle, forgotten[0].began)]
    for f in forgotten:
        windows += [
            (f"{f.what}_delete", f.began, f.deleted),
            (f"{f.what}_scrub", f.deleted, f.done),
        ]
    for name, start, end in windows:
        for scope in ("every", "project"):
            times = loaded.during(scope, start, end)
            for p in (50, 95, 100):
                value = percentile(times, p) if times else 0.0
                out.emit(f"search_{scope}_p{p}_{name}", RECALL, value, "ms", n=len(times))


if __name__ == "__main__":
    main()

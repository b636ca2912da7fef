"""What a member's key costs a request: the service's search answered with no key in the
database (the raw baseline), with a key of every right, and with a key limited to one project.

    python -m bench.keys [--turns 2000] [--requests 200] [--rounds 5] [--postgres URL]

Each configuration is an index of its own holding the same `--turns` turns (two projects), served
in process through FastAPI's TestClient; the rounds alternate the configurations, and each
reports the median and p95 wall time of `--requests` searches of one project. Then the key's
check alone (`members.access`: one indexed row read and an HMAC) on the same store. With
`--postgres` (an empty database's URL) the keyed configurations run on it as well. One JSON line
a measurement on stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient

from history import HistoryIndex
from history.access import LOCAL_ACTOR, Right
from history.api import create_app
from history.domain import Turn

PROJECTS = ("/bench/shop", "/bench/bank")
QUERY = {"q": "login limiter", "project": PROJECTS[0]}


def filled(target: str, turns: int) -> HistoryIndex:
    index = HistoryIndex.open(target)
    index.record_many(
        [
            Turn(
                turn_id=f"t{n}",
                session_id=f"s{n // 20}",
                project=PROJECTS[n % 2],
                asked_at=datetime.now(UTC),
                tainted=False,
                asked=f"why does the login limiter {n} refuse after {n % 7} tries",
                answered=f"the window is {n % 13} minutes in src/limits_{n % 50}.py",
                files=(),
                edited=(),
                tools=(),
            )
            for n in range(turns)
        ]
    )
    return index


def timed(client: TestClient, headers: dict[str, str], requests: int) -> list[float]:
    took = []
    for _ in range(requests):
        start = time.perf_counter()
        answer = client.get("/api/code/history", params=QUERY, headers=headers)
        took.append((time.perf_counter() - start) * 1000)
        assert answer.status_code == 200, answer.text
    return took


def summary(name: str, store: str, took: list[float]) -> dict[str, object]:
    ordered = sorted(took)
    return {
        "case": name,
        "store": store,
        "requests": len(took),
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1], 3),
    }


def run(store: str, targets: dict[str, str], args: argparse.Namespace) -> None:
    configs = {}
    for name, target in targets.items():
        index = filled(target, args.turns)
        headers: dict[str, str] = {}
        if name != "no key (baseline)":
            projects = [PROJECTS[0]] if name == "key of one project" else None
            key = index.members.add("bench", list(Right), projects, LOCAL_ACTOR)[1]
            headers = {"Authorization": f"Bearer {key}"}
        configs[name] = (index, TestClient(create_app(index), base_url="http://127.0.0.1"), headers)
    took: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(args.rounds):
        for name, (_index, client, headers) in configs.items():
            took[name] += timed(client, headers, args.requests)
    for name in configs:
        print(json.dumps(summary(name, store, took[name])), flush=True)
    index, _client, headers = configs["key of every right"]
    key = headers["Authorization"].split()[1]
    checks = []
    for _ in range(args.requests * args.rounds):
        start = time.perf_counter()
        assert index.members.access(key) is not None
        checks.append((time.perf_counter() - start) * 1000)
    print(json.dumps(summary("members.access alone", store, checks)), flush=True)
    for index, _client, _headers in configs.values():
        index.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres", help="an empty PostgreSQL database's URL")
    args = parser.parse_args()
    names = ("no key (baseline)", "key of every right", "key of one project")
    with tempfile.TemporaryDirectory() as folder:
        run("sqlite", {name: str(Path(folder) / f"{n}.db") for n, name in enumerate(names)}, args)
    if args.postgres:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        url = make_url(args.postgres)
        admin = create_engine(url, isolation_level="AUTOCOMMIT")
        targets = {}
        with admin.connect() as conn:
            for n, name in enumerate(names):
                database = f"{url.database}_keys_{n}"
                conn.execute(text(f"DROP DATABASE IF EXISTS {database}"))
                conn.execute(text(f"CREATE DATABASE {database}"))
                targets[name] = url.set(database=database).render_as_string(hide_password=False)
        try:
            run("postgresql", targets, args)
        finally:
            with admin.connect() as conn:
                for n in range(len(names)):
                    conn.execute(
                        text(f"DROP DATABASE IF EXISTS {url.database}_keys_{n} WITH (FORCE)")
                    )
            admin.dispose()


if __name__ == "__main__":
    main()

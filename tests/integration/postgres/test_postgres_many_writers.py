"""A team's shared index: four `recall serve` workers on one PostgreSQL database and four import
processes writing at the same time lose nothing."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from history import HistoryIndex
from tests.helpers.paths import ROOT
from tests.helpers.ports import free_port

POSTS_PER_CLIENT, CLIENTS = 25, 4
IMPORTED_PER_PROCESS, IMPORTERS, BATCH = 60, 4, 10
IMPORT = """
import sys
from datetime import UTC, datetime
from history import HistoryIndex
from history.importers.base import ImportedTurn

url, worker, total, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
index = HistoryIndex.open(url)
turns = [
    ImportedTurn(turn_id=f"import-{worker}-{n}", session_id=f"import-{worker}-{n // 10}",
                 project="/team/shop", asked=f"imported question {worker} {n}", answered="ok",
                 files=("a.py",), edited=(), tools=(), tainted=False, asked_at=datetime.now(UTC))
    for n in range(total)
]
for start in range(0, total, batch):
    counts = index.record_many(turns[start:start + batch])
    assert counts.new == len(turns[start:start + batch]), counts
index.close()
"""


def asked(turn_id: str) -> str:
    return f"posted question {turn_id} " + hashlib.sha256(turn_id.encode()).hexdigest()


def wait_for(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120  # four interpreters starting on a busy 2-core machine
    while True:
        assert process.poll() is None, process.communicate()[1].decode()
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the workers did not answer /healthz in 120 s"
        time.sleep(0.1)


def post_turns(base: str, client: int) -> list[int]:
    statuses = []
    with httpx.Client(base_url=base, timeout=30) as http:
        for n in range(POSTS_PER_CLIENT):
            turn_id = f"post-{client}-{n}"
            body = {
                "turn_id": turn_id,
                "session_id": f"post-{client}",
                "project": "/team/shop",
                "asked": asked(turn_id),
                "answered": "done",
            }
            statuses.append(http.post("/api/code/turns", json=body).status_code)
    return statuses


def test_four_workers_and_four_importers_lose_nothing(postgres_url: str, tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "history.cli", "serve", "--database-url", postgres_url,
         "--port", str(port), "--workers", "4", "--home", str(tmp_path / "unused")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base, server)
        importers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    IMPORT,
                    postgres_url,
                    str(worker),
                    str(IMPORTED_PER_PROCESS),
                    str(BATCH),
                ],
                cwd=ROOT,
                stderr=subprocess.PIPE,
            )
            for worker in range(IMPORTERS)
        ]
        with ThreadPoolExecutor(CLIENTS) as pool:
            statuses = [
                s for part in pool.map(post_turns, [base] * CLIENTS, range(CLIENTS)) for s in part
            ]
        errors = [importer.communicate(timeout=120)[1].decode() for importer in importers]
        assert [importer.returncode for importer in importers] == [0] * IMPORTERS, errors
        assert statuses == [201] * (POSTS_PER_CLIENT * CLIENTS)
    finally:
        server.terminate()
        server.communicate(timeout=30)

    index = HistoryIndex.open(postgres_url)
    assert index.count() == POSTS_PER_CLIENT * CLIENTS + IMPORTED_PER_PROCESS * IMPORTERS
    for client in range(CLIENTS):
        for n in (0, POSTS_PER_CLIENT - 1):
            turn_id = f"post-{client}-{n}"
            (hit,) = index.search(hashlib.sha256(turn_id.encode()).hexdigest(), k=1)
            assert (hit.turn_id, hit.asked) == (turn_id, asked(turn_id))
    assert len(index.session_ids("/team/shop")) == CLIENTS + IMPORTERS * IMPORTED_PER_PROCESS // 10
    index.close()

"""Many writers never lose a row: threads in one process, and processes on one home."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from history import HistoryIndex
from history.store.sqlite.doctor import index_agrees, table_problems
from tests.helpers.engines import engine_of


def test_four_writers_and_four_readers_in_threads(index: HistoryIndex) -> None:
    def write(worker: int) -> list[bool]:
        return [
            index.record(
                turn_id=f"w{worker}-{n}",
                session_id=f"s{worker}",
                project=f"/p{worker % 2}",
                asked=f"login step {n} of worker {worker}",
                answered="done",
            )
            for n in range(250)
        ]

    def read(_: int) -> int:
        found = 0
        for _ in range(60):
            found += len(index.search("login worker", project=None, k=10))
        return found

    with ThreadPoolExecutor(8) as pool:
        writers = [pool.submit(write, worker) for worker in range(4)]
        readers = [pool.submit(read, reader) for reader in range(4)]
        assert all(all(future.result()) for future in writers)
        assert all(future.result() >= 0 for future in readers)
    assert index.count() == 1000
    assert table_problems(engine_of(index)) == [] and index_agrees(engine_of(index))
    assert len(index.search("worker", project="/p0", k=10)) == 10


def test_four_processes_migrating_and_recording_into_one_new_home(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from history import history_for
        worker = sys.argv[1]
        index = history_for()
        failed = sum(
            not index.record(turn_id=f"{worker}-{n}", session_id=worker, project="/p",
                             asked=f"parser change {n}", answered="ok")
            for n in range(200)
        )
        print(failed)
        """
    )
    env = {**os.environ, "RECALL_HOME": str(tmp_path)}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, f"w{n}"], env=env, stdout=subprocess.PIPE, text=True
        )
        for n in range(4)
    ]
    failures = [int(worker.communicate(timeout=120)[0]) for worker in workers]
    assert failures == [0, 0, 0, 0]
    assert all(worker.returncode == 0 for worker in workers)
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.count() == 800 and sorted(index.session_ids()) == ["w0", "w1", "w2", "w3"]
    assert engine_of(index) is not None and index_agrees(engine_of(index))
    index.close()

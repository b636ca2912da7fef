"""A forget while other processes read and write: the owed scrub is in the database, so the
service finishes it once readers let go, with no write needed; a crash midway leaves a forget
that any process resumes, search never showing the half-forgotten part; and a large forget lets
another process's records through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite.forgetting.steps import SqliteScrub
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import (
    CANARY,
    canary_left,
    fill,
    scrubbed_soon,
)
from tests.helpers.serving import RECALL, recall_serve

READER = textwrap.dedent(
    """
    import sys
    from history.store.sqlite.engine import sqlite_driver
    reader = sqlite_driver().connect(sys.argv[1], isolation_level=None)
    reader.execute("BEGIN")
    print(reader.execute("SELECT count(*) FROM turns").fetchone()[0], flush=True)
    sys.stdin.readline()
    reader.execute("COMMIT")
    """
)


def gone_within(home: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while canary_left(home):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_forget_under_a_reader_is_finished_by_the_service_once_the_reader_ends(
    tmp_path: Path,
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    index.close()
    with recall_serve(tmp_path):
        reader = subprocess.Popen(
            [sys.executable, "-c", READER, str(tmp_path / "history.db")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert reader.stdin is not None and reader.stdout is not None
        assert reader.stdout.readline().strip() == "303"  # its snapshot holds the doomed turns
        forget = subprocess.run(
            [str(RECALL), "forget", "--session", "doomed", "--yes"],
            env={**os.environ, "RECALL_HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert forget.returncode == 0, forget.stderr
        assert "forgot 3 turns" in forget.stdout
        time.sleep(1.5)  # the service's upkeep tries, and the reader holds it back
        assert canary_left(tmp_path)
        reader.stdin.write("done\n")
        reader.stdin.close()
        reader.wait(timeout=10)
        # No write from anyone: the service finds the scrub owed and finishes it.
        assert gone_within(tmp_path, 5)


def test_a_forget_cut_short_is_hidden_at_once_and_finished_by_the_next_process_without_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    doomed = [f"bulk-{n}" for n in range(150)]
    for n, turn_id in enumerate(doomed):
        index.record(
            turn_id=turn_id,
            session_id=f"bulk-{n % 5}",
            project="/work/doomed",
            asked=f"more of the plan {CANARY}",
            answered="",
        )
    real_step = SqliteScrub.delete_step
    batches: list[bool] = []

    def crash_after_one_batch(self: SqliteScrub) -> bool:
        if batches:
            raise KeyboardInterrupt  # the process dies between two batches
        self.sizes.turns = 50
        batches.append(real_step(self))
        return True

    monkeypatch.setattr(SqliteScrub, "delete_step", crash_after_one_batch)
    index._upkeep.close()  # only the forget touches the file from here on
    with pytest.raises(KeyboardInterrupt):
        index.forget_project("/work/doomed")
    monkeypatch.undo()
    # Half the rows are still there, but search, the views and the project list show none.
    assert index.search(CANARY, project=None) == []
    assert index.search("plan", project="/work/doomed") == []
    assert index.turn("bulk-149") is None and index.conversation("bulk-1") == []
    assert "/work/doomed" not in [p.project for p in index.projects()]
    with sqlite_db.sqlite_driver().connect(str(tmp_path / "history.db")) as peek:
        left = peek.execute("SELECT count(*) FROM turns WHERE project = '/work/doomed'")
        assert 0 < left.fetchone()[0] < 153
    index._upkeep.close()  # the process is gone, its upkeep with it
    engine_of(index).dispose()

    later = HistoryIndex.open(tmp_path / "history.db")
    assert later.purge_pending
    later.watch()  # what the service does; nobody writes
    assert gone_within(tmp_path, 5) and scrubbed_soon(later, 5)
    assert later.count() == 300
    assert later.forgotten(["bulk-0", "doomed"]) == {"bulk-0", "doomed"}
    later.close()


RECORDER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from history import HistoryIndex
    index = HistoryIndex.open(sys.argv[1], busy_timeout_ms=int(sys.argv[3]))
    stop = Path(sys.argv[2])
    latencies, failed, n = [], 0, 0
    print("ready", flush=True)
    while not stop.exists():
        started = time.monotonic()
        turn = {"session_id": "live", "project": "/work/live", "answered": "still here"}
        ok = index.record(turn_id=f"live-{n}", asked=f"live turn {n}", **turn)
        latencies.append(time.monotonic() - started)
        failed += not ok
        n += 1
        time.sleep(0.02)
    index.close()
    print(json.dumps({"latencies": latencies, "failed": failed}), flush=True)
    """
)


@pytest.mark.timing_sensitive  # a record's wall-clock wait, which a starved machine stretches
def test_another_process_records_through_a_large_forget(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    fill(index)
    words = ["parser", "lexer", "token", "grammar", "visitor", "syntax", "module", "import"]
    batch = [
        ImportedTurn(
            turn_id=f"big-{n}",
            session_id=f"big-{n // 30}",
            project="/work/doomed",
            asked=" ".join(words[(n + i) % len(words)] for i in range(12)) + f" {CANARY}",
            answered=" ".join(words[(n * 3 + i) % len(words)] for i in range(40)),
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=datetime.now(UTC),
        )
        for n in range(2_000)
    ]
    assert index.record_many(batch).new == 2_000
    index.tidy()
    stop = tmp_path / "stop"
    recorder = subprocess.Popen(
        [sys.executable, "-c", RECORDER, str(db), str(stop), "2000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert recorder.stdout is not None
    assert recorder.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    started = time.monotonic()
    assert index.forget_project("/work/doomed") == 2_003
    took = time.monotonic() - started
    time.sleep(0.3)
    stop.touch()
    out, _ = recorder.communicate(timeout=60)
    report = json.loads(out.strip().splitlines()[-1])
    latencies = sorted(report["latencies"])
    assert report["failed"] == 0
    assert len(latencies) > 10
    # No record waited for the forget as a whole: each waited at most a step or two.
    assert latencies[-1] < max(0.5, took / 3), (latencies[-5:], took)
    assert index.search(CANARY, project=None) == [] and not index.purge_pending
    assert not canary_left(tmp_path)
    index.close()


def test_recall_doctor_finishes_an_owed_scrub(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db", busy_timeout_ms=200)
    fill(index)
    reader = sqlite_db.sqlite_driver().connect(str(tmp_path / "history.db"), isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM turns").fetchone()
    assert index.forget_session("doomed") == 3
    index._upkeep.close()  # the forgetting process is gone, its upkeep with it
    engine_of(index).dispose()
    reader.execute("COMMIT")  # it lets go, but stays open: no last close checkpoints the WAL
    assert canary_left(tmp_path)
    doctor = subprocess.run(
        [str(RECALL), "doctor"],
        env={**os.environ, "RECALL_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert doctor.returncode == 0, doctor.stderr
    assert "Finished what a forget had left owed" in doctor.stdout
    assert not canary_left(tmp_path)
    reader.close()


def test_an_import_that_brings_a_conversation_back_stops_its_unfinished_forget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    turns = [
        ImportedTurn(
            turn_id=f"back-{n}",
            session_id=f"back-{n % 3}",
            project="/work/doomed",
            asked=f"turn {n} about the lexer",
            answered="",
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=datetime.now(UTC),
        )
        for n in range(150)
    ]
    index.record_many(turns)
    index._upkeep.close()

    def crash(self: SqliteScrub) -> bool:
        raise KeyboardInterrupt  # the process dies before the first batch

    monkeypatch.setattr(SqliteScrub, "delete_step", crash)
    with pytest.raises(KeyboardInterrupt):
        index.forget_project("/work/doomed")
    monkeypatch.undo()
    assert index.search("lexer") == []
    brought_back = [turn for turn in turns if turn.session_id == "back-1"]
    assert index.record_many(brought_back, include_forgotten=True).unchanged == 50
    assert index.tidy() and not index.purge_pending
    assert {hit.session_id for hit in index.search("lexer", k=100)} == {"back-1"}
    assert index.count() == 50
    index.close()


def test_while_a_reader_holds_back_an_owed_scrub_records_do_not_wait_for_it(
    tmp_path: Path,
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    fill(index)
    reader = sqlite_db.sqlite_driver().connect(str(tmp_path / "history.db"), isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM turns").fetchone()
    assert index.forget_session("doomed") == 3 and index.purge_pending
    index.watch()  # retries the scrub every second, as recall serve does
    writer = HistoryIndex.open(tmp_path / "history.db")
    latencies = []
    for n in range(40):
        started = time.monotonic()
        assert writer.record(
            turn_id=f"w-{n}", session_id="w", project="/work/w", asked="x", answered=""
        )
        latencies.append(time.monotonic() - started)
        time.sleep(0.05)
    assert index.purge_pending  # still held back all along
    assert max(latencies) < 1.0, sorted(latencies)[-3:]  # the busy timeout is 5 s
    reader.execute("COMMIT")
    assert scrubbed_soon(index, 5) and not canary_left(tmp_path)
    reader.close()
    writer.close()
    index.close()

"""A full disk, for real: the history on a small tmpfs filled to the last byte. Records fail
(False, one log line each), forget says the disk is full in a sentence, every committed turn is
kept, and a new process can still open the history and search it; once space is freed it
records again. Skipped where this process may not mount a tmpfs."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.cli import main
from history.domain import READ_ONLY
from tests.helpers.loopback import LOOPBACK

SEARCH_IN_A_NEW_PROCESS = """
    import json, sys
    from history import HistoryIndex
    index = HistoryIndex.open(sys.argv[1])
    hits = index.search("login", k=10)
    print(json.dumps({"count": index.count(), "writable": index.writable,
                      "hits": [hit.turn_id for hit in hits]}))
    index.close()
"""


@pytest.fixture
def small_disk() -> Iterator[Path]:
    mount_point = Path(tempfile.mkdtemp(prefix="recall-full-disk-"))
    mount = ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(mount_point)]
    if subprocess.run(mount, capture_output=True).returncode != 0:
        mount_point.rmdir()
        pytest.skip("mounting a small tmpfs is not permitted here (it needs root)")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "--lazy", str(mount_point)], check=True)
        mount_point.rmdir()


def fill(disk: Path) -> Path:
    """Take every byte that is left."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass  # no space left on the device
    finally:
        os.close(fd)
    return filler


def in_a_new_process(db: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SEARCH_IN_A_NEW_PROCESS), str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


def forget_in_the_cli(home: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["--home", str(home), "forget", "--session", "s-1", "--yes"])
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err and len(err.strip().splitlines()) <= 3
    return err


def test_records_fail_in_words_and_every_committed_turn_stays_searchable(
    small_disk: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    ballast = small_disk / "ballast"  # the space freed at the end
    ballast.write_bytes(b"\0" * 1_000_000)
    db = small_disk / "history.db"
    index = HistoryIndex.open(db)
    committed, failed = [], 0
    with caplog.at_level(logging.WARNING):
        for n in range(2_000):
            turn_id = f"t-{n}"
            asked = f"login flow {n} " + os.urandom(400).hex()
            if index.record(
                turn_id=turn_id, session_id=f"s-{n % 3}", project="/p", asked=asked, answered="ok"
            ):
                committed.append(turn_id)
            else:
                failed += 1
                if failed == 3:
                    break
    assert failed == 3 and len(committed) > 10
    refusals = [record for record in caplog.records if "not recorded" in record.getMessage()]
    assert len(refusals) == 3 and all("login" not in r.getMessage() for r in refusals)
    fill(small_disk)  # what a failed write gave back

    assert "(database or disk is full)" in forget_in_the_cli(small_disk, capsys)
    forgotten = TestClient(create_app(index), base_url=LOOPBACK).delete("/api/code/sessions/s-2")
    assert forgotten.status_code == 503 and forgotten.json()["detail"]
    index.close()  # its last checkpoint cannot run: the turns stay in the -wal

    found = in_a_new_process(db)
    assert found["count"] == len(committed) and found["hits"]

    ballast.unlink()
    index = HistoryIndex.open(db)
    assert index.writable and index.count() == len(committed)
    assert index.record(turn_id="after", session_id="s", project="/p", asked="login", answered="")
    index.close()


def test_a_history_closed_cleanly_on_a_disk_that_fills_up_still_opens_and_searches(
    small_disk: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    db = small_disk / "history.db"
    index = HistoryIndex.open(db)
    for n in range(20):
        assert index.record(
            turn_id=f"t-{n}", session_id=f"s-{n % 3}", project="/p", asked=f"login {n}", answered=""
        )
    index.close()
    fill(small_disk)

    found = in_a_new_process(db)  # SQLite cannot make its -shm: read with it in memory instead
    assert found == {"count": 20, "writable": False, "hits": [f"t-{n}" for n in range(19, 9, -1)]}
    with caplog.at_level(logging.WARNING):
        err = forget_in_the_cli(small_disk, capsys)
    assert f"nothing forgotten: {READ_ONLY}" in err and "the disk holding it is full" in caplog.text
    code = main(["--home", str(small_disk), "stats"])
    assert code == 0 and "20 in 3 conversations" in capsys.readouterr().out

    (small_disk / "filler").unlink()
    index = HistoryIndex.open(db)
    assert index.writable and index.forget_session("s-1") == 7 and index.count() == 13
    index.close()

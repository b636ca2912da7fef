"""A history file this process may not write (its mode, a read-only folder, an immutable flag, a
read-only mount) opens read-only: search works, a record is refused with one log line, forget
and import say so in a sentence and exit 3, and the service answers writes with 503 and why.

Real files throughout: the `?mode=ro` URI would skip the opening these tests are about."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.domain import READ_ONLY, ReadOnlyHistory
from history.tools.recall_history import RecallHistoryTool
from tests.helpers.loopback import LOOPBACK
from tests.helpers.unprivileged import Unprivileged, folder_for, unprivileged

# What the unprivileged process does and sees, as JSON on its stdout.
SCRIPT = """
    import contextlib, hashlib, io, json, logging, os, sys
    from pathlib import Path
    from history import HistoryIndex
    from history.cli import main
    from history.domain import ReadOnlyHistory

    home = Path(os.environ["RECALL_HOME"])
    db = home / "history.db"
    seen = {"cli": {}}
    for argv in (
        ["search", "login", "--everywhere"],
        ["forget", "--session", "s-1", "--yes"],
        ["forget", "--project", "/p", "--yes"],
        ["import", "claude-code", str(home)],
        ["hook", "claude-code"],
        ["stats"],
        ["doctor"],
    ):
        out, err = io.StringIO(), io.StringIO()
        sys.stdin = io.StringIO("{}")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        seen["cli"][" ".join(argv[:2])] = [code, out.getvalue(), err.getvalue()]

    logs = io.StringIO()
    logging.basicConfig(stream=logs, level=logging.WARNING, force=True)
    index = HistoryIndex.open(db)
    seen["writable"] = index.writable
    seen["found"] = [hit.turn_id for hit in index.search("login")]
    seen["recorded"] = index.record(
        turn_id="t-2", session_id="s-2", project="/p", asked="login again", answered="no"
    )
    try:
        index.forget_session("s-1")
    except ReadOnlyHistory as refused:
        seen["forget"] = str(refused)
    index.close()
    seen["log"] = logs.getvalue()
    seen["sha"] = hashlib.sha256(db.read_bytes()).hexdigest()

    # The owner gives the write permission back: the history records again.
    home.chmod(0o700)
    db.chmod(0o600)
    index = HistoryIndex.open(db)
    seen["writable_again"] = index.writable
    seen["recorded_again"] = index.record(
        turn_id="t-3", session_id="s-3", project="/p", asked="login later", answered="yes"
    )
    index.close()
    print(json.dumps(seen))
"""


def recorded_home(home: Path) -> Path:
    index = HistoryIndex.open(home / "history.db")
    assert index.record(
        turn_id="t-1", session_id="s-1", project="/p", asked="login flow", answered="ok"
    )
    index.close()
    return home / "history.db"


@pytest.fixture
def runner() -> Unprivileged:
    way = unprivileged()
    if isinstance(way, str):
        pytest.skip(way)
    return way


@pytest.mark.parametrize("read_only", ["file", "folder"])
def test_a_file_the_user_may_only_read_searches_and_refuses_writes_in_words(
    runner: Unprivileged, read_only: str
) -> None:
    with folder_for(runner.owner) as home:
        db = recorded_home(home)
        for path in [home, *home.iterdir()]:
            os.chown(path, runner.owner, runner.owner)
        db.chmod(0o400)
        if read_only == "folder":  # no -wal or -shm can be made beside it
            home.chmod(0o500)
        before = hashlib.sha256(db.read_bytes()).hexdigest()

        done = runner.python(SCRIPT, {"RECALL_HOME": str(home)})
        assert done.returncode == 0, done.stderr[-2000:]
        seen = json.loads(done.stdout)

    code, out, err = seen["cli"]["search login"]
    assert code == 0 and "t-1" in out
    for command in ("forget --session", "forget --project", "import claude-code"):
        code, out, err = seen["cli"][command]
        assert code == 3 and READ_ONLY in err and "Traceback" not in err, (command, err)
    code, out, err = seen["cli"]["hook claude-code"]
    assert code == 0 and out == "" and "nothing imported" in err
    code, out, err = seen["cli"]["stats"]
    assert code == 0 and "1 in 1 conversation\n" in out
    code, out, err = seen["cli"]["doctor"]
    assert code == 0 and "Only checking" in out and "sound" in out and "Traceback" not in err

    assert seen["writable"] is False and seen["found"] == ["t-1"]
    assert seen["recorded"] is False and seen["forget"] == READ_ONLY
    refusals = [line for line in seen["log"].splitlines() if "t-2" in line]
    assert len(refusals) == 1 and "read-only" in refusals[0]
    assert seen["sha"] == before  # not a byte of the file changed
    assert seen["writable_again"] is True and seen["recorded_again"] is True


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not permitted here (root on a filesystem with the flag)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.fixture
def unwritable_database(tmp_path: Path) -> Iterator[Path]:
    """A database this test process cannot write: 0400 for a user, immutable for root."""
    db = recorded_home(tmp_path)
    if os.geteuid() != 0:
        db.chmod(0o400)
        yield db
        return
    with immutable(db):
        yield db


def test_an_immutable_or_read_only_file_serves_searches_and_answers_writes_503(
    unwritable_database: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        index = HistoryIndex.open(unwritable_database)
    try:
        assert index.writable is False and READ_ONLY in caplog.text
        client = TestClient(create_app(index), base_url=LOOPBACK)
        found = client.get("/api/code/history", params={"q": "login"})
        assert found.status_code == 200 and found.json()["hits"][0]["turn_id"] == "t-1"
        turn = {"turn_id": "t-9", "session_id": "s", "project": "/p", "asked": "a", "answered": "b"}
        for answer in (
            client.post("/api/code/turns", json=turn),
            client.delete("/api/code/sessions/s-1"),
            client.delete("/api/code/projects", params={"project": "/p"}),
        ):
            assert answer.status_code == 503 and answer.json() == {"detail": READ_ONLY}
        # The MCP server's tool, over the same index: reading needs no write.
        assert "login flow" in RecallHistoryTool(index, "/p").run("login")
        with pytest.raises(ReadOnlyHistory):
            index.forget_project("/p")
        assert index.count() == 1
    finally:
        index.close()


def test_a_read_only_mount_opens_read_only() -> None:
    mount_point = Path(tempfile.mkdtemp(prefix="recall-ro-mount-"))
    mount = ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mount_point)]
    if subprocess.run(mount, capture_output=True).returncode != 0:
        mount_point.rmdir()
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        recorded_home(mount_point)
        remount = ["mount", "-o", "remount,ro", str(mount_point)]
        subprocess.run(remount, check=True)
        index = HistoryIndex.open(mount_point / "history.db")
        assert index.writable is False
        assert [hit.turn_id for hit in index.search("login")] == ["t-1"]
        assert not index.record(turn_id="t-2", session_id="s", project="/p", asked="a", answered="")
        index.close()
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)
        mount_point.rmdir()

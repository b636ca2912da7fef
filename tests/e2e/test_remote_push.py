"""`recall push --server URL [--project P]`: a local history to a real `recall serve`. Turn ids
dedupe it (a second push sends nothing new), it goes on where it stopped, and it tells of the
turns hooks kept aside because the service refused them."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from history import HistoryIndex
from history.cli.push import PROGRESS_TURNS
from history.importers.base import ImportedTurn
from history.index import history_for
from history.redaction.ids import IdMask
from history.remote.client import Client
from history.remote.outbox import Outbox
from history.remote.push import push, pushed_ledger
from history.remote.settings import Service as Address
from tests.helpers.cli_runs import recall
from tests.helpers.remote_service import TAP_HOST, TOKEN, Service, WireTap, running

PROJECTS = ("/home/dev/shop", "/home/dev/blog")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A local history of 24 turns: 2 projects, 3 conversations each, 4 turns each."""
    home = tmp_path / "client"
    monkeypatch.setenv("RECALL_HOME", str(home))
    monkeypatch.setenv("RECALL_KEY", TOKEN)
    monkeypatch.delenv("RECALL_SERVER", raising=False)
    index = history_for(home)
    for p, project in enumerate(PROJECTS):
        for s in range(3):
            for t in range(4):
                index.record(
                    turn_id=f"p{p}-s{s}-t{t}",
                    session_id=f"p{p}-s{s}",
                    project=project,
                    asked=f"question {t} of conversation {s} in {project}",
                    answered=f"answer {t}",
                    asked_at=datetime(2026, 3, 1 + s, 10, t, tzinfo=UTC),
                )
    yield home
    index.close()


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return Service(tmp_path / "server")


def test_push_sends_the_history_and_a_second_push_sends_nothing_again(
    home: Path, service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    with running(service):
        code, out, err = recall(capsys, "push", "--server", service.url)
        assert (code, err) == (0, "")
        assert out == f"Pushed to {service.url}: 24 sent, 0 unchanged, 0 failed.\n"
        stored = service.turns()
        assert len(stored) == 24
        assert stored["p1-s2-t3"] == {
            "asked": "question 3 of conversation 2 in /home/dev/blog",
            "answered": "answer 3",
        }
        code, out, _ = recall(capsys, "push", "--server", service.url)
        assert (code, out) == (0, f"Pushed to {service.url}: 0 sent, 24 unchanged, 0 failed.\n")
        # Without the ledger every turn is posted again, and the service says it had them.
        code, out, _ = recall(capsys, "push", "--server", service.url, "--again", "--json")
        summary = json.loads(out)
        assert (code, summary["sent"], summary["unchanged"], summary["failed"]) == (0, 0, 24, 0)
        assert len(service.turns()) == 24


def test_push_of_one_project_sends_only_its_turns(
    home: Path, service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    with running(service):
        code, out, _ = recall(capsys, "push", "--server", service.url, "--project", PROJECTS[1])
        assert (code, out) == (0, f"Pushed to {service.url}: 12 sent, 0 unchanged, 0 failed.\n")
        assert {turn_id[:2] for turn_id in service.turns()} == {"p1"}
        code, out, _ = recall(capsys, "push", "--server", service.url)
        assert out == f"Pushed to {service.url}: 12 sent, 12 unchanged, 0 failed.\n"


def test_a_push_cut_short_by_the_service_going_away_goes_on_where_it_stopped(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service = Service(tmp_path / "server", None, TAP_HOST)
    tap = WireTap(service.port)  # counts what is posted
    index = history_for(home)
    client = Client(Address(tap.url, TOKEN), timeout=5.0)
    ledger, posted = pushed_ledger(home, tap.url), [0]

    def step() -> None:
        posted[0] += 1
        if posted[0] == 10:  # the service stops after nine turns were posted
            service.stop()

    service.start()
    first = push(index, client, IdMask(), ledger, None, step)
    assert first.stopped is not None and first.stopped.status is None
    assert (first.sent, first.unchanged, first.failed, first.left) == (9, 0, 0, 15)
    tap.sent.clear()
    with running(service):
        code, out, err = recall(capsys, "push", "--server", tap.url)
        assert (code, err) == (0, "")
        assert out == f"Pushed to {tap.url}: 15 sent, 9 unchanged, 0 failed.\n"
        assert len(service.turns()) == 24
    tap.close()
    assert tap.sent.count(b"POST /api/code/turns ") == 15  # the nine sent are not sent again


def test_a_push_to_a_service_that_is_down_says_so_and_fails(
    home: Path, service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = recall(capsys, "push", "--server", service.url)
    assert code == 3
    assert out == f"Pushed to {service.url}: 0 sent, 0 unchanged, 0 failed.\n"
    assert "the service stopped taking turns (Connection refused); 24 turns were not sent" in err


def test_push_tells_of_turns_kept_aside_and_sends_them_again_when_asked(
    home: Path, service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.dumps(
        {
            "turn_id": "from-a-hook",
            "session_id": "hooked",
            "project": "/home/dev/shop",
            "asked": "a turn a hook could not deliver",
            "answered": "kept aside",
        }
    ).encode()
    outbox = Outbox(home)
    outbox.refuse(body, 422, "the service of that day refused it", None)
    with running(service):
        code, _, err = recall(capsys, "push", "--server", service.url, "--project", PROJECTS[0])
        assert code == 0
        assert f"1 turn the service refused is kept in {outbox.refused_folder}" in err
        assert "from-a-hook" not in service.turns()
        code, _, err = recall(capsys, "push", "--server", service.url, "--retry-refused")
        assert (code, err) == (
            0,
            "recall push: 1 turn that waited was delivered to " + service.url + "\n",
        )
        assert "from-a-hook" in service.turns()
    assert outbox.refused() == [] and outbox.waiting() == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "name the service: --server URL, or set RECALL_SERVER"),
        (("--server", "http://team.example.com"), "use https://"),
        (("--server", "team.example.com"), "https://recall.example.com"),
    ],
)
def test_push_without_a_usable_address_is_a_usage_error(
    home: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], said: str
) -> None:
    code, out, err = recall(capsys, "push", *args)
    assert (code, out) == (2, "") and said in err


def test_an_empty_history_has_nothing_to_push(
    tmp_path: Path,
    service: Service,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RECALL_KEY", TOKEN)
    HistoryIndex.open(tmp_path / "empty" / "history.db").close()
    with running(service):
        code, out, _ = recall(
            capsys, "--home", str(tmp_path / "empty"), "push", "--server", service.url
        )
    assert (code, out) == (
        1,
        "Nothing to push: the local history holds no turn (of that project).\n",
    )


def test_push_shows_its_progress_on_a_terminal(tmp_path: Path, service: Service) -> None:
    home = tmp_path / "many"
    index = HistoryIndex.open(home / "history.db")
    index.record_many([_generated(n) for n in range(PROGRESS_TURNS + 50)])
    index.close()
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_KEY": TOKEN, "TERM": "xterm"}
    leader, follower = pty.openpty()
    screen = bytearray()
    reader = threading.Thread(target=_read_all, args=(leader, screen), daemon=True)
    reader.start()
    try:
        with running(service):
            done = subprocess.run(
                [sys.executable, "-m", "history.cli", "push", "--server", service.url],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=follower,
                env=env,
                text=True,
                timeout=300,
                check=False,
            )
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    assert (done.returncode, done.stdout) == (
        0,
        f"Pushed to {service.url}: {PROGRESS_TURNS + 50} sent, 0 unchanged, 0 failed.\n",
    )
    shown = screen.decode("utf-8", "replace")
    assert "push" in shown and "%" in shown  # a bar with its share done, on the terminal


def _generated(n: int) -> ImportedTurn:
    return ImportedTurn(
        turn_id=f"many-{n}",
        session_id=f"many-s{n // 25}",
        project="/home/dev/shop",
        asked=f"question number {n}",
        answered="an answer",
        files=(),
        edited=(),
        tools=(),
        tainted=False,
        asked_at=datetime(2026, 3, 1, tzinfo=UTC),
    )


def _read_all(fd: int, into: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal closed
            return
        if not chunk:
            return
        into += chunk

"""`recall watch --server URL`: what the agents write goes to a real `recall serve`, each turn
once, and what waited while the service was away goes with the next change it sees."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.helpers.remote_service import Service, add_turn, hook_env, running, waiting


def eventually(check: Callable[[], bool], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_watch_posts_new_turns_to_the_service_and_what_waited_with_the_next(
    tmp_path: Path,
) -> None:
    service, home = Service(tmp_path / "server"), tmp_path / "client"
    agents = tmp_path / "agents" / "shop"
    agents.mkdir(parents=True)
    transcript = agents / "s1.jsonl"
    first = add_turn(transcript, "s1", 1, "how is the cart total computed", "by summing")
    command = [sys.executable, "-m", "history.cli", "watch", "--server", service.url]
    watch = subprocess.Popen(
        [*command, "--poll", str(tmp_path / "agents")],
        env=hook_env(home, HOME=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert eventually(lambda: len(waiting(home)) == 1)  # down: it waits
        with running(service):
            second = add_turn(transcript, "s1", 2, "and the taxes", "added after the total")
            assert eventually(lambda: set(service.turns()) == {first, second}), watch.poll()
        assert waiting(home) == []
        assert not (home / "history.db").exists()
    finally:
        watch.send_signal(signal.SIGTERM)
        out, err = watch.communicate(timeout=30)
    assert (watch.returncode, out) == (0, "")
    assert "cannot take turns now" in err and "1 turn that waited was delivered" in err

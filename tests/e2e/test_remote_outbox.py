"""An hour offline, on a clock the test moves: a hook every five minutes while the service is
stopped, then the service back on the same port. Every turn arrives, in its last version, and
the outbox's time-driven sweeping takes only what a killed writer left behind."""

from __future__ import annotations

import json
from pathlib import Path

from history.importers.run import import_hook
from history.remote.client import Client
from history.remote.settings import Service as Address
from history.remote.sink import RemoteHistory
from tests.helpers.clock import Clock
from tests.helpers.remote_service import TOKEN, Service, add_turn, hook_input, running, waiting

MINUTES = 60.0


def hook(home: Path, clock: Clock, url: str, transcript: Path) -> None:
    """What one `recall hook` process does with a Stop hook's input."""
    sink = RemoteHistory(home, Client(Address(url, TOKEN), timeout=2.0), clock=clock)
    assert import_hook(sink, hook_input(transcript, "s1")) is not None


def test_an_hour_offline_loses_no_turn_and_sends_each_in_its_last_version(
    tmp_path: Path,
) -> None:
    home, clock = tmp_path / "client", Clock()
    service = Service(tmp_path / "server")
    transcript = tmp_path / "s1.jsonl"
    expected = {add_turn(transcript, "s1", 0, "before the outage", "sent at once")}
    with running(service):
        hook(home, clock, service.url, transcript)
        assert set(service.turns()) == expected
    killed = home / "outbox" / ".draft-killed-writer.json"
    killed.write_bytes(b'{"turn_id": "half')
    for n in range(1, 13):  # the service is down for an hour: a turn every five minutes
        clock.advance(5 * MINUTES)
        expected.add(add_turn(transcript, "s1", n, f"question {n}", f"answer {n}"))
        hook(home, clock, service.url, transcript)
        assert len(waiting(home)) == n
    queued = [json.loads(p.read_bytes())["turn_id"] for p in waiting(home)]
    assert queued == [f"claude-code:s1:s1-u{n}" for n in range(1, 13)]  # in the order asked
    assert killed.exists()  # younger than an hour: perhaps a writer still at work
    clock.advance(5 * MINUTES)
    with running(service):
        hook(home, clock, service.url, transcript)
        stored = service.turns()
    assert set(stored) == expected
    assert not killed.exists()  # an hour old: a dead writer's, swept
    assert stored["claude-code:s1:s1-u12"]["answered"] == "answer 12"
    assert waiting(home) == []

"""The parts of posting to a service, without one: the address, what each status means, the
ledger of what went, and the outbox's files, order and drafts."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from history.importers.base import ImportedTurn
from history.redaction.ids import IdMask
from history.remote.body import digest, encoded, prepared_body
from history.remote.client import Verdict, verdict_of
from history.remote.ledger import Ledger
from history.remote.outbox import DRAFT_SECONDS, Outbox
from history.remote.settings import AddressProblem, BadAddress, configured_service
from history.remote.sink import LEDGER_DAYS, RemoteHistory
from tests.helpers.clock import Clock


def turn(n: int, answered: str = "an answer", session: str = "s1") -> ImportedTurn:
    return ImportedTurn(
        turn_id=f"t{n}",
        session_id=session,
        project="/home/dev/shop",
        asked=f"question {n}",
        answered=answered,
        files=(),
        edited=(),
        tools=(),
        tainted=False,
        asked_at=datetime(2026, 3, 1, 10, n, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("address", "key", "url"),
    [
        ("https://recall.example.com/", "k", "https://recall.example.com"),
        ("https://recall.example.com/team/", "k", "https://recall.example.com/team"),
        ("http://127.0.0.1:8765", "k", "http://127.0.0.1:8765"),
        ("http://localhost:8765", "k", "http://localhost:8765"),
        ("http://[::1]:8765", "k", "http://[::1]:8765"),
        ("http://recall.lan:8765", None, "http://recall.lan:8765"),  # no key to give away
    ],
)
def test_addresses_that_can_be_used(address: str, key: str | None, url: str) -> None:
    environ = {"RECALL_KEY": key} if key else {}
    service = configured_service(address, environ)
    assert service is not None and (service.url, service.key) == (url, key)
    assert service.turns_url == f"{url}/api/code/turns"


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("recall.example.com", AddressProblem.NOT_HTTP),
        ("ftp://recall.example.com", AddressProblem.NOT_HTTP),
        ("https://", AddressProblem.NO_HOST),
        ("https://host:port", AddressProblem.NOT_HTTP),
        ("https://me:secret@recall.example.com", AddressProblem.CREDENTIALS),
        ("https://recall.example.com/?key=1", AddressProblem.QUERY),
        ("http://recall.example.com", AddressProblem.KEY_IN_THE_CLEAR),
        ("http://10.0.0.5:8765", AddressProblem.KEY_IN_THE_CLEAR),
    ],
)
def test_addresses_that_cannot_be_used_say_why(address: str, problem: AddressProblem) -> None:
    with pytest.raises(BadAddress) as raised:
        configured_service(address, {"RECALL_KEY": "k"})
    assert raised.value.problem is problem


def test_the_environment_names_the_service_and_the_option_wins() -> None:
    environ = {"RECALL_SERVER": "https://a.example.com", "RECALL_KEY": " k "}
    assert configured_service(None, environ) == configured_service("https://a.example.com", environ)
    chosen = configured_service("https://b.example.com", environ)
    assert chosen is not None and (chosen.url, chosen.key) == ("https://b.example.com", "k")
    assert configured_service(None, {"RECALL_KEY": "k"}) is None
    assert configured_service("  ", {}) is None


@pytest.mark.parametrize(
    ("status", "verdict"),
    [
        (200, Verdict.DELIVERED),
        (201, Verdict.DELIVERED),
        (400, Verdict.REFUSED),
        (413, Verdict.REFUSED),
        (415, Verdict.REFUSED),
        (422, Verdict.REFUSED),
        (401, Verdict.LATER),
        (403, Verdict.LATER),
        (404, Verdict.LATER),
        (408, Verdict.LATER),
        (421, Verdict.LATER),
        (429, Verdict.LATER),
        (301, Verdict.LATER),
        (500, Verdict.LATER),
        (503, Verdict.LATER),
    ],
)
def test_what_each_status_means_for_a_turn(status: int, verdict: Verdict) -> None:
    assert verdict_of(status) is verdict


def test_the_body_is_the_redacted_turn_and_its_digest_names_its_version(tmp_path: Path) -> None:
    ids = IdMask(tmp_path / "id-key")
    secret = turn(1, answered="token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    prepared, body = prepared_body(secret, ids)
    assert b"ghp_a1B2" not in body and b"[redacted:github-token]" in body
    sent = json.loads(body)
    assert sent["asked_at"] == "2026-03-01T10:01:00+00:00" and sent["project"] == "/home/dev/shop"
    # What the service's own `prepare` makes of the body is the body again: nothing left to do.
    assert prepared_body(prepared, ids)[1] == body == encoded(prepared)
    assert digest(body) != digest(prepared_body(turn(1), ids)[1])


def test_a_ledger_line_cut_short_is_passed_over(tmp_path: Path) -> None:
    ledger = Ledger.named(tmp_path / "sent", "s1")
    ledger.add("a" * 32)
    with ledger.path.open("a") as out:
        out.write("bbbb")  # a kill in the middle of a line
    ledger.add("c" * 32)
    again = Ledger(ledger.path)
    assert "a" * 32 in again and "bbbb" not in again
    assert stat.S_IMODE(ledger.path.stat().st_mode) == 0o600


def test_the_outbox_keeps_order_private_files_and_sweeps_only_old_drafts(tmp_path: Path) -> None:
    clock = Clock()
    outbox = Outbox(tmp_path, clock)
    first = outbox.put(b'{"turn_id": "1"}')
    clock.advance(1)
    second = outbox.put(b'{"turn_id": "2"}')
    assert outbox.waiting() == [first, second]
    assert stat.S_IMODE(outbox.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    draft = outbox.folder / ".draft-killed.json"
    draft.write_bytes(b'{"turn_id": "3", "ask')  # a writer killed half-way
    outbox.sweep_drafts()
    assert draft.exists() and outbox.waiting() == [first, second]
    clock.advance(DRAFT_SECONDS + 1)
    outbox.sweep_drafts()
    assert not draft.exists() and outbox.waiting() == [first, second]


def test_a_refused_turn_is_kept_aside_and_can_be_queued_again(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path)
    queued = outbox.put(b'{"turn_id": "1"}')
    kept = outbox.refuse(b'{"turn_id": "1"}', 413, "too large", queued)
    assert outbox.waiting() == [] and outbox.refused() == [kept]
    assert json.loads(kept.read_text())["turn"] == {"turn_id": "1"}
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert outbox.requeue_refused() == 1
    [back] = outbox.waiting()
    assert json.loads(back.read_bytes()) == {"turn_id": "1"} and outbox.refused() == []


def test_without_a_usable_address_turns_wait_once_per_version(tmp_path: Path) -> None:
    sink = RemoteHistory(tmp_path, None)
    counts = sink.record_many([turn(1), turn(2)])
    assert (counts.new, counts.unchanged) == (2, 0)
    again = RemoteHistory(tmp_path, None).record_many([turn(1), turn(2), turn(3)])
    assert (again.new, again.unchanged) == (1, 2)
    grown = RemoteHistory(tmp_path, None).record_many([turn(3, answered="a longer answer")])
    assert grown.new == 1
    queued = [json.loads(p.read_bytes())["turn_id"] for p in sink.outbox.waiting()]
    assert queued == ["t1", "t2", "t3", "t3"]


def test_a_conversation_ledger_untouched_for_months_is_dropped(tmp_path: Path) -> None:
    clock = Clock()
    RemoteHistory(tmp_path, None, clock=clock).record_many([turn(1)])
    [old] = (tmp_path / "outbox" / "sent").iterdir()
    os.utime(old, (clock.now, clock.now))
    clock.advance(LEDGER_DAYS * 86_400 + 60)
    RemoteHistory(tmp_path, None, clock=clock).record_many([turn(1, session="s2")])
    assert not old.exists()

"""Members' keys at a real `recall serve`: the hook's client (history/remote) sends RECALL_KEY
as a bearer key and the service takes it; a key revoked by `recall keys revoke`, another
process, is refused at its very next request. On SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from history import HistoryIndex
from history.remote.client import Client, Verdict
from history.remote.settings import Service, configured_service
from tests.helpers.serving import recall_serve

RECALL = [sys.executable, "-m", "history.cli"]

pytestmark = pytest.mark.both_backends


def service(base: str, key: str) -> Service:
    """The service at `base`, as a client configured with the member's `key` reaches it."""
    found = configured_service(base, {"RECALL_KEY": key})
    assert found is not None
    return found


def recall(home: Path, url: str, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RECALL, "--home", str(home), "--database-url", url, *words],
        capture_output=True,
        text=True,
        timeout=60,
    )


def status(url: str, key: str | None = None) -> int:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as error:
        return error.code


def body(turn_id: str) -> bytes:
    turn = {
        "turn_id": turn_id,
        "session_id": "s1",
        "project": "/w/shop",
        "asked": "where is the login limiter",
        "answered": "in src/limits.py",
    }
    return json.dumps(turn).encode()


def test_keys_at_a_real_service_from_adding_to_revoking(tmp_path: Path, database_url: str) -> None:
    home = tmp_path / "team"
    HistoryIndex.open(database_url).close()
    added = recall(home, database_url, "keys", "add", "laptop", "--can", "read,record")
    assert added.returncode == 0, added.stderr
    laptop = added.stdout.strip()
    reader = recall(home, database_url, "keys", "add", "dashboard", "--can", "read").stdout.strip()
    with recall_serve(home, "--database-url", database_url) as server:
        assert "member's key" in server.serving
        search = f"{server.base}/api/code/history?q=limiter&project=/w/shop"
        sent = Client(service(server.base, laptop)).post_turn(body("t1"))
        assert sent.verdict is Verdict.DELIVERED, sent
        refused = Client(service(server.base, reader)).post_turn(body("t2"))
        assert refused.status == 403 and refused.key_refused and "record" in refused.reason
        assert status(search) == 401
        assert status(search, reader) == 200
        revoked = recall(home, database_url, "keys", "revoke", "dashboard")
        assert revoked.returncode == 0, revoked.stderr
        assert status(search, reader) == 401
        assert status(search, laptop) == 200
        assert status(f"{server.base}/healthz") == 200

"""The service as a real uvicorn process on a free loopback port: a round trip, a clean stop."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from history import HistoryIndex
from tests.helpers.paths import ROOT
from tests.helpers.ports import free_port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    home, port = tmp_path / "home", free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "history.api.serve", "--home", str(home), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            assert process.poll() is None, process.communicate()[1].decode()
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not answer /healthz in 15 s"
            time.sleep(0.05)
        yield process, base, home
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.mark.parametrize(
    ("stop", "exit_codes"), [("SIGTERM", (0, -signal.SIGTERM)), ("SIGINT", (0,))]
)
def test_round_trip_over_http_then_a_clean_stop(
    server: tuple[subprocess.Popen[bytes], str, Path], stop: str, exit_codes: tuple[int, ...]
) -> None:
    process, base, home = server
    turn = {
        "turn_id": "t1",
        "session_id": "conv-1",
        "project": "/w/shop",
        "asked": "How should the login function hash passwords?",
        "answered": "Use argon2.",
        "edited": ["src/login.py"],
    }
    with httpx.Client(base_url=base, timeout=5) as client:
        assert client.get("/healthz").json() == {"ok": True, "full_text": True, "turns": 0}
        assert client.post("/api/code/turns", json=turn).status_code == 201
        [hit] = client.get("/api/code/history", params={"q": "login"}).json()["hits"]
        assert hit["turn_id"] == "t1" and hit["edited"] == ["src/login.py"]
        gone = client.delete("/api/code/sessions/conv-1").json()
        assert gone == {"ok": True, "deleted": 1, "forgotten": 1}
        assert client.get("/api/code/history", params={"q": "login"}).json()["hits"] == []
        assert client.delete("/api/code/sessions/conv-1").status_code == 404
        bad = client.post("/api/code/turns", content=b"{", headers={"content-type": "text/json"})
        assert bad.status_code == 422 and bad.json()["detail"]

    process.send_signal(getattr(signal, stop))  # uvicorn shuts down, then re-raises SIGTERM
    _, stderr = process.communicate(timeout=10)
    assert process.returncode in exit_codes, stderr.decode()
    assert b"Traceback" not in stderr, stderr.decode()
    # Searches are not logged: the access log is off by default.
    assert b"login" not in stderr, stderr.decode()
    # The index was closed on shutdown: the last connection checkpointed and removed the WAL.
    assert not (home / "history.db-wal").exists()
    # The database is left whole: another process opens it and finds what the server left.
    reopened = HistoryIndex.open(home / "history.db")
    try:
        assert reopened.count() == 0 and reopened.session_ids() == []
    finally:
        reopened.close()

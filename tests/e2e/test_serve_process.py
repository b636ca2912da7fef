"""`recall serve` as a person runs it: what it says at start and per request, and how it treats
strangers and connections that stall, against a real uvicorn process on 127.0.0.1."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers.serving import recall_serve

TOKEN = "s3cret-for-tests"
SEARCH = "/api/code/history"


def test_start_up_line_and_an_access_line_per_request_without_query_values(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    with recall_serve(home) as server:
        assert server.serving == f"{home / 'history.db'}, FTS5 full text; no token"
        answer = httpx.get(f"{server.base}{SEARCH}", params={"q": "kubernetes secret", "k": 3})
        assert answer.status_code == 200
        line = server.wait_for_line(f"GET {SEARCH}")
        assert line.endswith(" ms") and f"GET {SEARCH}?q&k 200 " in line
        assert "kubernetes" not in "\n".join(server.lines)
        httpx.delete(f"{server.base}/api/code/sessions/nobody")
        server.wait_for_line("DELETE /api/code/sessions/nobody 404 ")


def test_log_level_warning_keeps_requests_out_of_the_log(tmp_path: Path) -> None:
    with recall_serve(tmp_path / "home", "--log-level", "warning") as server:
        assert httpx.get(f"{server.base}/healthz").status_code == 200
        time.sleep(0.5)
        assert not any("/healthz" in line for line in server.lines)


def raw(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=15)
    return connection


def closed_within(connection: socket.socket, seconds: float) -> float:
    """Seconds until the server closed `connection` (reading what it sent until EOF)."""
    started = time.monotonic()
    connection.settimeout(seconds)
    try:
        while connection.recv(65_536):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def test_a_stranger_is_refused_before_the_body_is_sent(tmp_path: Path) -> None:
    with recall_serve(tmp_path / "home", env={"RECALL_TOKEN": TOKEN}) as server:
        assert "every request but /healthz and the page needs the token" in server.serving
        with raw(server.port) as stranger:
            # A huge declared body, none of it sent: the answer cannot have waited for it.
            stranger.sendall(
                b"POST /api/code/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"
            )
            stranger.settimeout(5)
            head = stranger.recv(65_536)
            assert head.startswith(b"HTTP/1.1 401 "), head
            assert closed_within(stranger, 5) < 5
        with httpx.Client(base_url=server.base) as client:
            for path in ("/docs", "/redoc", "/openapi.json", "/static-offline-docs/swagger-ui.css"):
                assert client.get(path).status_code == 401, path
            allowed = {"Authorization": f"Bearer {TOKEN}"}
            assert client.get("/docs", headers=allowed).status_code == 200
            assert client.get("/healthz").status_code == 200


STALLED_CONNECTIONS = 50


@pytest.mark.timing_sensitive
def test_stalled_and_idle_connections_are_closed_within_a_bound(tmp_path: Path) -> None:
    args = ("--read-timeout", "1", "--keep-alive", "1")
    with recall_serve(tmp_path / "home", *args) as server:
        head = (
            b"POST /api/code/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            b"Content-Length: 500\r\n\r\n"
        )
        stalled = [raw(server.port) for _ in range(STALLED_CONNECTIONS)]
        idle, slow_head = raw(server.port), raw(server.port)
        started = time.monotonic()
        for connection in stalled:
            connection.sendall(head + b'{"turn_id": "t1", "session_id": "s", ')  # then nothing
        slow_head.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the head never ends
        for connection in [*stalled, idle, slow_head]:
            closed_within(connection, 10)
            connection.close()
        assert time.monotonic() - started < 5  # read timeout 1 s, and some slack for a busy CI

        with raw(server.port) as kept_alive:
            kept_alive.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert closed_within(kept_alive, 8) < 4  # the answer, then the keep-alive limit
        assert httpx.get(f"{server.base}/healthz").status_code == 200  # still serving
        assert not any("Traceback" in line for line in server.lines), server.lines


@pytest.mark.timing_sensitive
def test_workers_say_where_they_listen_log_requests_and_close_stalled_connections(
    tmp_path: Path,
) -> None:
    args = ("--workers", "2", "--read-timeout", "1", "--keep-alive", "1")
    with recall_serve(tmp_path / "home", *args) as server:
        assert server.serving.endswith("; no token; 2 workers")
        assert httpx.get(f"{server.base}{SEARCH}", params={"q": "secret"}).status_code == 200
        assert f"GET {SEARCH}?q 200 " in server.wait_for_line(f"GET {SEARCH}")
        with raw(server.port) as stalled:
            stalled.sendall(
                b"POST /api/code/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\n"
                b'Content-Length: 500\r\n\r\n{"turn_id": "t1", '
            )
            assert closed_within(stalled, 10) < 5

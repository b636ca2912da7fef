"""DNS rebinding as a browser would do it, by hand: raw HTTP over a socket to a real `recall
serve` on 127.0.0.1, its `Host` and `Origin` set to another site's, on every endpoint, with and
without a token. Nothing is read, planted or forgotten; the service's own names still work."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

from history import HistoryIndex
from history.api import create_app
from tests.helpers.fakes import FakeTurnRepository
from tests.helpers.routes import TURN, every_route
from tests.helpers.serving import RECALL, recall_serve

TOKEN = "s3cret-rebinding"
ROUTES = every_route(create_app(HistoryIndex(FakeTurnRepository(), full_text=False)))


def raw(port: int, method: str, path: str, headers: dict[str, str], version: str = "1.1") -> int:
    """Send one request exactly as written; the status the server answered."""
    body = json.dumps({**TURN, "turn_id": "t-planted", "asked": "planted"}).encode()
    lines = [f"{method} {path} HTTP/{version}", *(f"{k}: {v}" for k, v in headers.items())]
    lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    lines += ["Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=15) as connection:
        connection.sendall("\r\n".join(lines).encode() + body)
        answer = b""
        while chunk := connection.recv(65_536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    assert b"Traceback" not in rest
    return int(status_line.split(b" ")[1])


def seeded(home: Path) -> Path:
    index = HistoryIndex.open(home / "history.db")
    index.record(**TURN)
    index.close()
    return home


@pytest.mark.parametrize("token", [None, TOKEN], ids=["no-token", "token"])
def test_rebound_names_and_other_origins_get_nothing_from_a_real_server(
    tmp_path: Path, token: str | None
) -> None:
    env = {"RECALL_TOKEN": token} if token else {}
    bearer = {"Authorization": f"Bearer {token}"} if token else {}
    with recall_serve(seeded(tmp_path), env=env) as server:
        port = server.port
        rebound = ["evil.example.com", f"attacker.test:{port}", f"127.0.0.1.nip.io:{port}"]
        rebound += [f"0.0.0.0:{port}", "0.0.0.0"]
        for method, path in ROUTES:
            for host in rebound:
                origin = f"http://{host}"
                code = raw(port, method, path, {"Host": host, "Origin": origin, **bearer})
                assert code == 421, (method, path, host)
            if method in ("POST", "DELETE"):
                for origin in ("http://evil.example.com", f"http://localhost:{port + 1}", "null"):
                    headers = {"Host": f"127.0.0.1:{port}", "Origin": origin, **bearer}
                    assert raw(port, method, path, headers) == 403, (method, path, origin)
                across = {"Host": f"127.0.0.1:{port}", "Sec-Fetch-Site": "cross-site", **bearer}
                assert raw(port, method, path, across) == 403, (method, path)
            else:
                for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
                    code = raw(port, method, path, {"Host": host, **bearer})
                    # answered by its handler: found, not found, or a query it refuses
                    answered = code in (200, 404, 422)
                    assert answered or (code == 401 and token), (path, host, code)
        # Nothing was planted and nothing forgotten; the service's own callers still change it.
        search = "/api/code/history?q=planted"
        own = {"Host": f"127.0.0.1:{port}", **bearer}
        assert raw(port, "GET", search, own) == 200
        index = HistoryIndex.open(tmp_path / "history.db")
        try:
            assert index.count() == 1 and not index.search("planted")
        finally:
            index.close()
        page = {**own, "Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"}
        assert raw(port, "POST", "/api/code/turns", page) == 201
        assert raw(port, "POST", "/api/code/turns", bearer, version="1.0") == 201  # no Host
        assert raw(port, "DELETE", "/api/code/sessions/conv-1", page) == 200
        if token:
            assert raw(port, "DELETE", "/api/code/sessions/conv-1", {"Host": own["Host"]}) == 401


def test_a_network_address_without_a_token_refuses_to_start_in_one_sentence(
    tmp_path: Path,
) -> None:
    home = tmp_path / "never-created"
    env = {k: v for k, v in os.environ.items() if k != "RECALL_TOKEN"}
    refused = subprocess.run(
        [str(RECALL), "--home", str(home), "serve", "--host", "0.0.0.0", "--port", "0"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    [sentence] = refused.stderr.splitlines()
    assert sentence.startswith("recall serve: refusing to serve on 0.0.0.0 without a token")
    assert "--open-to-network-without-token" in sentence and not home.exists()
    for bad in ("evil.example:80", "a,b", "::1", ""):
        wrong = subprocess.run(
            [str(RECALL), "serve", "--allow-host", bad], capture_output=True, text=True, timeout=60
        )
        assert wrong.returncode == 2 and "is not a host name" in wrong.stderr, (bad, wrong.stderr)


def test_open_to_network_without_token_serves_and_still_refuses_rebound_names(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RECALL_TOKEN"}
    process = subprocess.Popen(
        [str(RECALL), "--home", str(tmp_path), "serve", "--host", "0.0.0.0", "--port", "0",
         "--open-to-network-without-token"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"listening on http://0\.0\.0\.0:(\d+) ", line)
        assert found, line
        port = int(found[1])
        assert raw(port, "GET", "/healthz", {"Host": f"127.0.0.1:{port}"}) == 200
        assert raw(port, "GET", "/healthz", {"Host": f"0.0.0.0:{port}"}) == 421
        assert raw(port, "GET", "/healthz", {"Host": f"evil.example:{port}"}) == 421
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_names_given_with_allow_host_are_answered_by_every_worker(tmp_path: Path) -> None:
    args = ("--allow-host", "recall.box.lan", "--allow-host", "history.test", "--workers", "2")
    with recall_serve(seeded(tmp_path), *args) as server:
        port = server.port
        for _ in range(4):  # several connections: both workers answer some
            for name in ("recall.box.lan", "history.test"):
                code = raw(port, "GET", "/api/code/history?q=login", {"Host": f"{name}:{port}"})
                assert code == 200, name
            assert raw(port, "GET", "/healthz", {"Host": f"box.lan:{port}"}) == 421

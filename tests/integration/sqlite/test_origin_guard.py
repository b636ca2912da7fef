"""The service answers only its own names and its own pages (history/api/origin_guard.py), on
every route, with and without a token: a name rebound to 127.0.0.1 gets 421, a change sent by
a page of another origin gets 403, and neither reaches the index."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from starlette.types import Message

from history import HistoryIndex
from history.api import create_app
from history.api.origin_guard import split_host
from tests.helpers.loopback import LOOPBACK
from tests.helpers.routes import TURN, every_route
from tests.helpers.templates import new_index

TOKEN = "s3cret-guard"
REBOUND = ["evil.example.com", "attacker.test:8765", "127.0.0.1.nip.io", "0.0.0.0", "0.0.0.0:80"]
OURS = ["127.0.0.1", "127.0.0.1:80", "localhost", "LOCALHOST:80", "[::1]", "[::1]:80"]
MALFORMED = ["", "127.0.0.1:http", "::1", "[::1", "127.0.0.1:99999999", "a b"]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[HistoryIndex]:
    opened = new_index(tmp_path / "history.db")
    opened.record(**TURN)
    yield opened
    opened.close()


def client(index: HistoryIndex, **options: Any) -> TestClient:
    return TestClient(create_app(index, **options), base_url=LOOPBACK)


def test_every_route_is_guarded_with_and_without_a_token(index: HistoryIndex) -> None:
    for token in (None, TOKEN):
        app = create_app(index, token=token)
        routes = every_route(app)
        assert ("DELETE", "/api/code/sessions/conv-1") in routes and len(routes) >= 12
        with TestClient(app, base_url=LOOPBACK) as guarded:
            for method, path in routes:
                for host in REBOUND:
                    answer = guarded.request(method, path, headers={"host": host}, json=TURN)
                    assert answer.status_code == 421, (token, method, path, host)
                    assert "127.0.0.1, localhost or [::1]" in answer.json()["detail"]
                if method != "GET":
                    for origin in ("http://evil.example.com", "null", "http://127.0.0.1:9999"):
                        answer = guarded.request(
                            method, path, headers={"origin": origin}, json=TURN
                        )
                        assert answer.status_code == 403, (token, method, path, origin)
                        assert "another site" in answer.json()["detail"]
    assert index.count() == 1 and index.search("login")  # nothing planted, nothing forgotten


def test_a_rebound_name_reads_nothing_plants_nothing_and_forgets_nothing(
    index: HistoryIndex,
) -> None:
    rebound = client(index)
    evil = {"host": "evil.example.com", "origin": "http://evil.example.com"}
    read = rebound.get("/api/code/history", params={"q": "login"}, headers=evil)
    assert read.status_code == 421 and "argon2" not in read.text
    assert read.headers["content-type"] == "application/json"
    planted = {**TURN, "turn_id": "t-planted", "asked": "planted words"}
    assert rebound.post("/api/code/turns", json=planted, headers=evil).status_code == 421
    assert rebound.delete("/api/code/sessions/conv-1", headers=evil).status_code == 421
    assert rebound.delete("/api/code/projects?project=/w/shop", headers=evil).status_code == 421
    assert index.count() == 1 and not index.search("planted")


@pytest.mark.parametrize("host", OURS)
def test_the_service_answers_its_own_names(index: HistoryIndex, host: str) -> None:
    answer = client(index).get("/api/code/history?q=login", headers={"host": host})
    assert answer.status_code == 200 and answer.json()["hits"]


@pytest.mark.parametrize("host", MALFORMED)
def test_a_host_that_is_no_name_is_refused(index: HistoryIndex, host: str) -> None:
    assert client(index).get("/healthz", headers={"host": host}).status_code == 421


def test_another_port_of_our_own_name_is_refused(index: HistoryIndex) -> None:
    # TestClient's connection "arrives" on port 80; a browser sending :8766 went elsewhere.
    assert client(index).get("/healthz", headers={"host": "127.0.0.1:8766"}).status_code == 421


def test_a_name_given_with_allow_host_is_answered(index: HistoryIndex) -> None:
    named = client(index, allowed_hosts=["recall.box.lan", "[FE80::1]"])
    for host in ("recall.box.lan", "Recall.Box.Lan:80", "[fe80::1]:80"):
        assert named.get("/healthz", headers={"host": host}).status_code == 200, host
    assert named.get("/healthz", headers={"host": "box.lan"}).status_code == 421
    assert client(index).get("/healthz", headers={"host": "recall.box.lan"}).status_code == 421


def test_the_page_and_programs_still_change_the_history(index: HistoryIndex) -> None:
    own = client(index)
    page = {"origin": "http://127.0.0.1", "sec-fetch-site": "same-origin"}
    typed = {"sec-fetch-site": "none"}  # the person typed it: no page sent it
    assert own.post("/api/code/turns", json={**TURN, "turn_id": "t-2"}, headers=page).is_success
    assert own.post("/api/code/turns", json={**TURN, "turn_id": "t-3"}, headers=typed).is_success
    assert own.post("/api/code/turns", json={**TURN, "turn_id": "t-4"}).is_success  # curl
    named = {"host": "localhost:80", "origin": "http://localhost"}
    assert own.delete("/api/code/sessions/conv-1", headers=named).status_code == 200
    assert index.count() == 0


def test_with_a_token_a_program_without_origin_works_and_a_page_elsewhere_is_refused(
    index: HistoryIndex,
) -> None:
    guarded = client(index, token=TOKEN)
    bearer = {"authorization": f"Bearer {TOKEN}"}
    cross = {**bearer, "origin": "https://evil.example.com", "sec-fetch-site": "cross-site"}
    assert guarded.delete("/api/code/sessions/conv-1", headers=cross).status_code == 403
    assert guarded.delete("/api/code/sessions/conv-1").status_code == 401
    assert index.count() == 1
    assert guarded.delete("/api/code/sessions/conv-1", headers=bearer).status_code == 200


@pytest.mark.parametrize("site", ["cross-site", "same-site", "Cross-Site"])
def test_a_change_the_browser_marks_as_from_another_site_is_refused(
    index: HistoryIndex, site: str
) -> None:
    refused = client(index).delete("/api/code/sessions/conv-1", headers={"sec-fetch-site": site})
    assert refused.status_code == 403 and index.count() == 1


def test_reading_from_another_origin_is_left_to_the_browser(index: HistoryIndex) -> None:
    # A GET changes nothing; without CORS the other page cannot read the answer.
    cross = {"origin": "https://evil.example.com", "sec-fetch-site": "cross-site"}
    answer = client(index).get("/api/code/history?q=login", headers=cross)
    assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers


def test_an_origin_let_in_by_cors_may_change_the_history(index: HistoryIndex) -> None:
    opened = client(index, cors_origins=["https://app.example"])
    allowed = {"origin": "https://app.example", "sec-fetch-site": "cross-site"}
    assert opened.delete("/api/code/sessions/conv-1", headers=allowed).status_code == 200
    other = {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
    assert opened.post("/api/code/turns", json=TURN, headers=other).status_code == 403


def test_refusals_speak_the_requests_language(index: HistoryIndex) -> None:
    answer = client(index).get(
        "/healthz", headers={"host": "evil.example", "accept-language": "de"}
    )
    assert answer.status_code == 421 and answer.json()["detail"]


def asgi(app: FastAPI, method: str, headers: list[tuple[bytes, bytes]]) -> int:
    """One request straight into the app, with exactly `headers` (TestClient always adds Host)."""
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": json.dumps(TURN).encode(), "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.0", "method": method,
        "scheme": "http", "path": "/api/code/turns", "raw_path": b"/api/code/turns",
        "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8765),
        "headers": [(b"content-type", b"application/json"), *headers],
    }  # fmt: skip
    asyncio.run(app(scope, receive, send))
    return int(sent[0]["status"])


def test_without_a_host_a_program_is_answered_but_not_a_page_elsewhere(
    index: HistoryIndex,
) -> None:
    app = create_app(index)
    assert asgi(app, "POST", []) == 201  # HTTP/1.0 without Host: no browser sends that
    assert asgi(app, "POST", [(b"origin", b"http://127.0.0.1:8765")]) == 201
    assert asgi(app, "POST", [(b"origin", b"http://evil.example")]) == 403
    two = [(b"host", b"127.0.0.1:8765"), (b"host", b"evil.example")]
    assert asgi(app, "POST", two) == 421


@given(st.text(max_size=40))
def test_any_host_header_is_parsed_or_refused_without_an_error(value: str) -> None:
    address = split_host(value)
    assert address is None or (address[0] and (address[1] is None or address[1] < 100_000))

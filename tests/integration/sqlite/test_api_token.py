"""The service refuses strangers first: with a token, a request without it is a 401 before its
body is read (never a 413, 415 or 422 with parser messages), and the docs and schema need it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app, router
from history.api.models import MAX_BODY_BYTES
from tests.helpers.fakes import FakeTurnRepository
from tests.helpers.loopback import LOOPBACK

TOKEN = "s3cret"
GOOD = {"Authorization": f"Bearer {TOKEN}"}
TURNS = "/api/code/turns"


def call_without_reading(app: Any, method: str, path: str, headers: dict[str, str]) -> int:
    """One request straight into the ASGI app whose body must never be asked for."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        raise AssertionError("the body of a stranger's request was read")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    asyncio.run(app(scope, receive, send))
    return int(sent[0]["status"])


STRANGERS = [
    {"content-type": "application/json", "content-length": str(50 * MAX_BODY_BYTES)},
    {"content-type": "application/json", "content-length": "12"},
    {"content-type": "text/plain", "content-length": "12"},
    {"content-length": "12"},
    {"authorization": "Bearer wrong", "content-type": "application/json", "content-length": "3"},
]


@pytest.mark.parametrize("headers", STRANGERS)
def test_a_stranger_gets_401_before_the_body_is_read(index: HistoryIndex, headers: Any) -> None:
    app = create_app(index, token=TOKEN)
    assert call_without_reading(app, "POST", TURNS, headers) == 401


@pytest.mark.parametrize("headers", STRANGERS)
def test_a_mounted_router_refuses_strangers_before_the_body_too(headers: Any) -> None:
    host = FastAPI()
    host.include_router(router(HistoryIndex(FakeTurnRepository(), full_text=False), TOKEN))
    assert call_without_reading(host, "POST", TURNS, headers) == 401


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"x" * (MAX_BODY_BYTES + 10), json.dumps({"turn_id": 7}).encode(), b"\xff"],
)
def test_a_strangers_huge_or_malformed_body_is_401_not_413_or_422(
    index: HistoryIndex, body: bytes
) -> None:
    client = TestClient(create_app(index, token=TOKEN), base_url=LOOPBACK)
    answer = client.post(TURNS, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 401
    assert answer.json() == {
        "detail": "this service needs an `Authorization: Bearer <token>` header with its token"
    }
    assert answer.headers["www-authenticate"] == "Bearer"
    assert index.count() == 0


def test_the_docs_and_the_schema_need_the_token(index: HistoryIndex) -> None:
    client = TestClient(create_app(index, token=TOKEN), base_url=LOOPBACK)
    pages = ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"]
    pages += ["/static-offline-docs/swagger-ui-bundle.js", "/no-such-page"]
    for page in pages:
        assert client.get(page).status_code == 401, page
    for page in pages[:-1]:
        assert client.get(page, headers=GOOD).status_code == 200, page
    assert client.get("/healthz").status_code == 200


def test_without_a_token_the_docs_are_open(index: HistoryIndex) -> None:
    client = TestClient(create_app(index), base_url=LOOPBACK)
    assert client.get("/docs").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "recall-history"

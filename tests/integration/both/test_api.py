"""The HTTP service through FastAPI's test client: record, search, forget, limits and the token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.types import Message

from history import HistoryIndex
from history.api import create_app, router
from history.api.models import MAX_BODY_BYTES
from history.api.server import check_bind, is_loopback, serve
from tests.helpers.fakes import BrokenTurnRepository, FakeTurnRepository
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

TURNS = "/api/code/turns"
HISTORY = "/api/code/history"


def turn(
    turn_id: str, /, session: str = "conv-1", project: str = "/w/shop", **extra: Any
) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "session_id": session,
        "project": project,
        "asked": "How should the login function hash passwords?",
        "answered": "Use argon2 in login() and keep the pepper out of the repository.",
        "files": ["src/auth.py", "src/login.py"],
        "edited": ["src/login.py"],
        "tools": ["read_file"],
        **extra,
    }


@pytest.fixture
def client(index: HistoryIndex) -> Iterator[TestClient]:
    with TestClient(create_app(index), base_url=LOOPBACK) as test_client:
        yield test_client


def test_record_search_forget_round_trip(client: TestClient) -> None:
    when = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    made = client.post(TURNS, json=turn("t1", asked_at=when.isoformat(), tainted=True))
    assert (made.status_code, made.json()) == (201, {"ok": True, "turn_id": "t1", "outcome": "new"})

    found = client.get(HISTORY, params={"q": "login function", "project": "/w/shop"})
    assert found.status_code == 200
    body = found.json()
    assert body["terms"] == ["login", "function"] and body["message"] is None
    [hit] = body["hits"]
    assert hit["turn_id"] == "t1" and hit["session_id"] == "conv-1" and hit["tainted"] is True
    assert datetime.fromisoformat(hit["asked_at"]) == when
    assert hit["edited"] == ["src/login.py"] and "src/auth.py" in hit["files"]
    assert hit["tools"] == ["read_file"] and hit["score"] > 0
    assert hit["asked_excerpt"] == hit["asked"] and "argon2" in hit["answered_excerpt"]

    gone = client.delete("/api/code/sessions/conv-1")
    assert (gone.status_code, gone.json()) == (200, {"ok": True, "deleted": 1, "forgotten": 1})
    assert client.get(HISTORY, params={"q": "login"}).json()["hits"] == []
    again = client.delete("/api/code/sessions/conv-1")
    assert again.status_code == 404
    assert again.json() == {"detail": "this conversation was already forgotten"}


def test_excerpts_follow_the_tools_rule_on_long_turns(client: TestClient) -> None:
    filler = "lorem ipsum " * 200
    long_turn = turn("t1", asked=filler + "the zebra parser" + filler, answered=filler * 2)
    assert client.post(TURNS, json=long_turn).status_code == 201
    [hit] = client.get(HISTORY, params={"q": "zebra"}).json()["hits"]
    assert "zebra" in hit["asked_excerpt"] and len(hit["asked_excerpt"]) <= 302
    assert hit["asked_excerpt"].startswith("…") and hit["asked_excerpt"].endswith("…")
    assert len(hit["answered_excerpt"]) <= 502 and len(hit["asked"]) > 4000


def test_search_scope_days_and_k(client: TestClient) -> None:
    now = datetime.now(UTC)
    for i, (project, age) in enumerate([("/w/shop", 1), ("/w/shop", 30), ("/w/blog", 2)]):
        asked_at = (now - timedelta(days=age)).isoformat()
        client.post(TURNS, json=turn(f"t{i}", f"c{i}", project, asked_at=asked_at))

    def ids(**params: Any) -> list[str]:
        answer = client.get(HISTORY, params={"q": "login", **params})
        assert answer.status_code == 200, answer.text
        return sorted(hit["turn_id"] for hit in answer.json()["hits"])

    assert ids() == ["t0", "t1", "t2"]  # project omitted: every project
    assert ids(project="/w/shop/") == ["t0", "t1"]  # the same project key
    assert ids(project="/w/shop", days=7) == ["t0"]
    assert len(ids(k=1)) == 1
    none = client.get(HISTORY, params={"q": "the and of"}).json()
    assert none["hits"] == [] and none["terms"] == [] and "no word" in none["message"]


def test_forget_project_forgets_exactly_that_project(
    client: TestClient, index: HistoryIndex
) -> None:
    for turn_id, session, project in [
        ("t1", "conv-1", "/w/shop"),
        ("t2", "conv-1", "/w/shop"),
        ("t3", "conv-2", "/w/shop"),
        ("t4", "conv-3", "/w/blog"),
    ]:
        assert client.post(TURNS, json=turn(turn_id, session, project)).status_code == 201
    gone = client.delete("/api/code/projects", params={"project": "/w/shop/"})
    assert (gone.status_code, gone.json()) == (200, {"ok": True, "deleted": 2, "forgotten": 3})
    assert index.count("/w/shop") == 0 and index.count("/w/blog") == 1
    [hit] = client.get(HISTORY, params={"q": "login"}).json()["hits"]
    assert hit["turn_id"] == "t4"
    empty = client.delete("/api/code/projects", params={"project": "/w/shop"})
    assert empty.status_code == 404 and "nothing is recorded" in empty.json()["detail"]


def test_healthz(client: TestClient) -> None:
    client.post(TURNS, json=turn("t1"))
    assert client.get("/healthz").json() == {"ok": True, "full_text": True, "turns": 1}


SECRET = "hunter2-do-not-echo"


@pytest.mark.parametrize(
    ("method", "url", "payload"),
    [
        ("POST", TURNS, {k: v for k, v in turn("t1").items() if k != "asked"}),
        ("POST", TURNS, turn("t1", files="src/a.py")),
        ("POST", TURNS, turn("t1", tainted="yes")),
        ("POST", TURNS, turn("t1", turn_id=7)),
        ("POST", TURNS, turn("t1", asked_at="last tuesday")),
        ("POST", TURNS, turn("t1", asked_at="0001-01-01T00:00:00+05:00")),
        ("POST", TURNS, turn("t1", project="relative/path")),
        ("POST", TURNS, turn("t1", project="/w/a\x00b")),
        ("POST", TURNS, turn("t1", turn_id="")),
        ("POST", TURNS, turn("t1", files=["f"] * 1_001)),
        ("POST", TURNS, turn("t1", unknown_field=SECRET)),
        ("POST", TURNS, [turn("t1")]),
        ("GET", f"{HISTORY}?q=login&k=0", None),
        ("GET", f"{HISTORY}?q=login&k=11", None),
        ("GET", f"{HISTORY}?q=login&k=two", None),
        ("GET", f"{HISTORY}?q=login&days=0", None),
        ("GET", f"{HISTORY}?q=login&days=99999999999999999999", None),
        ("GET", f"{HISTORY}?q=", None),
        ("GET", HISTORY, None),
        ("GET", f"{HISTORY}?q=login&project=relative", None),
        ("DELETE", "/api/code/projects", None),
        ("DELETE", "/api/code/projects?workspace=", None),
        ("DELETE", "/api/code/sessions/", None),
    ],
)
def test_validation_errors_are_422_json_without_the_input(
    client: TestClient, method: str, url: str, payload: Any
) -> None:
    answer = client.request(method, url, json=payload)
    assert answer.status_code == 422, answer.text
    [first, *_] = answer.json()["detail"]
    assert {"loc", "msg", "type"} == set(first) and first["msg"]
    assert SECRET not in answer.text and '"input"' not in answer.text


@pytest.mark.parametrize(
    "raw",
    [b"{bad json", b"", b'{"turn_id": "t1",}', b"\xff\xfe{}", b"null", b"[" * 100_000],
)
def test_malformed_bodies_are_4xx_json(client: TestClient, raw: bytes) -> None:
    answer = client.post(TURNS, content=raw, headers={"content-type": "application/json"})
    assert answer.status_code in (400, 422) and answer.json()["detail"]


def test_bodies_over_two_megabytes_get_413(client: TestClient, index: HistoryIndex) -> None:
    json_header = {"content-type": "application/json"}
    fits = json.dumps(turn("t1", asked=""), separators=(",", ":")).encode()
    fits = fits.replace(b'"asked":""', b'"asked":"' + b"a" * (MAX_BODY_BYTES - len(fits)) + b'"')
    assert len(fits) == MAX_BODY_BYTES
    assert client.post(TURNS, content=fits, headers=json_header).status_code == 201

    big = json.dumps(turn("t2", asked="a" * MAX_BODY_BYTES)).encode()
    declared = client.post(TURNS, content=big, headers=json_header)
    assert declared.status_code == 413 and "over" in declared.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: chunked, counted as it streams
        yield from (big[i : i + 65_536] for i in range(0, len(big), 65_536))

    streamed = client.post(TURNS, content=chunks(), headers=json_header)
    assert streamed.status_code == 413 and streamed.request.headers.get("content-length") is None
    lying = client.post(TURNS, content=big, headers={**json_header, "content-length": "10"})
    assert lying.status_code in (400, 413)
    for length in ["9" * 5_000, "0" * 20 + "2097153"]:  # int() refuses 5000 digits
        huge = client.post(TURNS, content=b"{}", headers={**json_header, "content-length": length})
        assert huge.status_code == 413, length
    for length in ["-1", "abc", "0" * 30 + "2"]:  # not a size, or a small one: the body decides
        odd = client.post(TURNS, content=b"{}", headers={**json_header, "content-length": length})
        assert odd.status_code == 422, length
    assert index.count() == 1


def asgi_get(app: FastAPI, path: str, query: bytes) -> tuple[int, Any]:
    """One GET straight into the ASGI app: the test client refuses URLs this long."""
    messages: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        messages.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return messages[0]["status"], json.loads(body)


@pytest.mark.parametrize(
    "query",
    [
        b"q=%00",
        b"q=login%00function&project=%2Fw%2Fshop",
        b"q=%F0%9F%94%91+login+%F0%9F%98%80",
        b"q=%ED%A0%80+%FF%FE",
        b"q=%zz%",
        b"q=" + b"login+" * 1_500,
        b"q=" + b"a" * 1_000_000,
        b"q=login&project=" + b"%00" * 10_000,
        b"q=login&project=%2F" + b"x" * 1_000_000,
        b"q=login&k=%F0%9F%98%80&days=-1",
        b"q=login&q=twice&" + b"&" * 100_000,
    ],
)
def test_hostile_query_strings_never_500(client: TestClient, query: bytes) -> None:
    client.post(TURNS, json=turn("t1"))
    status, body = asgi_get(client.app, HISTORY, query)  # type: ignore[arg-type]
    assert status in (200, 422) and isinstance(body, dict)


@pytest.mark.parametrize(
    ("session", "status"),
    [("%00", 422), ("x" * 1_001, 422), ("%F0%9F%98%80", 404), ("a/b/c", 404), ("x" * 1_000, 404)],
)
def test_odd_session_ids_answer_json(client: TestClient, session: str, status: int) -> None:
    answer = client.delete(f"/api/code/sessions/{session}")
    assert answer.status_code == status and answer.json()["detail"]


@pytest.mark.parametrize("session", ["aider/2025-03-01/1", "two\nlines", " ?#% 😀"])
def test_any_recorded_session_id_can_be_forgotten(client: TestClient, session: str) -> None:
    assert client.post(TURNS, json=turn("t1", session=session)).status_code == 201
    gone = client.delete(f"/api/code/sessions/{quote(session)}")
    assert (gone.status_code, gone.json()) == (200, {"ok": True, "deleted": 1, "forgotten": 1})


def test_a_turn_that_cannot_be_written_is_503_json() -> None:
    broken = HistoryIndex(BrokenTurnRepository(), full_text=False)
    answer = TestClient(create_app(broken), base_url=LOOPBACK).post(TURNS, json=turn("t1"))
    assert answer.status_code == 503 and "could not be written" in answer.json()["detail"]


class LockedRepository(FakeTurnRepository):
    def delete_sessions(self, session_ids: Any) -> int:
        raise OperationalError("DELETE", {}, Exception("database is locked"))

    def count(self, project: str | None) -> int:
        raise OperationalError("SELECT", {}, Exception("disk I/O error"))


def test_index_failures_are_503_not_500() -> None:
    client = TestClient(
        create_app(HistoryIndex(LockedRepository(), full_text=False)), base_url=LOOPBACK
    )
    assert client.delete("/api/code/sessions/conv-1").status_code == 503
    assert client.get("/healthz").status_code == 503


def test_a_read_only_database_refuses_writes_with_503(tmp_path: Path) -> None:
    HistoryIndex.open(tmp_path / "history.db").close()
    read_only = HistoryIndex.open(f"sqlite:///file:{tmp_path}/history.db?mode=ro&uri=true")
    try:
        client = TestClient(create_app(read_only), base_url=LOOPBACK)
        assert client.post(TURNS, json=turn("t1")).status_code == 503
        assert client.delete("/api/code/sessions/conv-1").status_code == 503
        assert client.get(HISTORY, params={"q": "login"}).status_code == 200
    finally:
        read_only.close()


def test_a_token_guards_every_endpoint_but_healthz(index: HistoryIndex) -> None:
    client = TestClient(create_app(index, token="s3cret"), base_url=LOOPBACK)
    calls = [
        ("POST", TURNS, turn("t1")),
        ("GET", f"{HISTORY}?q=login", None),
        ("DELETE", "/api/code/sessions/conv-1", None),
        ("DELETE", "/api/code/projects?workspace=/w/shop", None),
    ]
    wrong: list[dict[str, str] | dict[bytes, bytes]] = [{}, {"Authorization": "Bearer s3cre"}]
    wrong += [{"Authorization": "Basic s3cret"}, {"Authorization": "Bearer s3cret2"}]
    wrong += [{b"Authorization": "Bearer s3crét".encode()}]
    for method, url, payload in calls:
        for headers in wrong:
            denied = client.request(method, url, json=payload, headers=headers)
            assert denied.status_code == 401, (method, url, headers)
            assert denied.headers["www-authenticate"] == "Bearer" and denied.json()["detail"]
    good = {"Authorization": "Bearer s3cret"}
    assert [client.request(m, u, json=p, headers=good).status_code for m, u, p in calls] == [
        201,
        200,
        200,  # conv-1's turn
        404,  # forgotten with conv-1: nothing left in /w/shop
    ]
    assert client.get("/healthz").status_code == 200
    with pytest.raises(ValueError, match="empty token"):
        create_app(index, token="")


def test_no_cors_unless_origins_are_given(index: HistoryIndex) -> None:
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}
    closed = TestClient(create_app(index), base_url=LOOPBACK).options(HISTORY, headers=preflight)
    assert "access-control-allow-origin" not in closed.headers
    opened = TestClient(create_app(index, cors_origins=["https://app.example"]), base_url=LOOPBACK)
    allowed = opened.options(HISTORY, headers=preflight)
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    other = opened.options(HISTORY, headers={**preflight, "Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers


def test_the_router_mounts_in_a_host_app_with_its_limits() -> None:
    host = FastAPI()
    host.include_router(router(HistoryIndex(FakeTurnRepository(), full_text=False)), prefix="/x")
    client = TestClient(host, base_url=LOOPBACK)
    assert client.post(f"/x{TURNS}", json=turn("t1")).status_code == 201
    assert client.get(f"/x{HISTORY}", params={"q": "login"}).json()["hits"]
    big = turn("t2", asked="a" * MAX_BODY_BYTES)
    assert client.post(f"/x{TURNS}", json=big).status_code == 413


def test_openapi_describes_every_endpoint_and_its_errors(index: HistoryIndex) -> None:
    guarded = TestClient(create_app(index, token="s3cret"), base_url=LOOPBACK)
    schema = guarded.get("/openapi.json", headers={"Authorization": "Bearer s3cret"}).json()
    operations = {
        (method.upper(), path): op
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }
    assert set(operations) == {
        ("POST", TURNS),
        ("GET", HISTORY),
        ("DELETE", "/api/code/sessions/{session_id}"),
        ("DELETE", "/api/code/projects"),
        ("GET", "/healthz"),
        ("GET", "/api/code/turns/{turn_id}"),
        ("GET", "/api/code/sessions/{session_id}"),
        ("GET", "/api/code/sessions"),
        ("GET", "/api/code/projects"),
        ("GET", "/api/code/files"),
        ("GET", "/api/admin/audit"),
    }
    for (method, path), op in operations.items():
        codes = set(op["responses"])
        assert "503" in codes and op["summary"]
        assert ("401" in codes) == (path != "/healthz"), (method, path)
        for code, response in op["responses"].items():
            assert "$ref" in response["content"]["application/json"]["schema"], (path, code)
    assert {"201", "413", "415", "422"} <= set(operations["POST", TURNS]["responses"])
    assert "404" in operations["DELETE", "/api/code/sessions/{session_id}"]["responses"]
    assert "404" in operations["DELETE", "/api/code/projects"]["responses"]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.10", False),
        ("example.com", False),
        ("localhost.example.com", False),
    ],
)
def test_only_loopback_binds_without_a_token(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
    if loopback:
        check_bind(host, 8765, None)
    else:
        with pytest.raises(ValueError, match="RECALL_TOKEN"):
            check_bind(host, 8765, None)
        check_bind(host, 8765, "s3cret")


def test_serve_refuses_a_public_bind_before_opening_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_start(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started")

    monkeypatch.setattr("history.api.server._Announcing.run", must_not_start)
    monkeypatch.delenv("RECALL_TOKEN", raising=False)
    home = tmp_path / "never-created"
    with pytest.raises(ValueError, match=r'refusing to serve on "0\.0\.0\.0"'):
        serve(str(home), host="0.0.0.0", port=8765)
    monkeypatch.setenv("RECALL_TOKEN", "")
    with pytest.raises(ValueError, match="refusing"):
        serve(str(home), host="0.0.0.0", port=8765)
    with pytest.raises(ValueError, match="empty"):
        serve(str(home), host="0.0.0.0", port=8765, token="")
    with pytest.raises(ValueError, match="not a TCP port"):
        serve(str(home), port=70_000)
    assert not home.exists()


@pytest.mark.parametrize("asked_at", [0, 1.5, "0", "2026-01-01", True])
def test_asked_at_that_is_not_a_date_time_is_422(asked_at: object, tmp_path: Path) -> None:
    # Regression: numbers and "0" were taken as Unix times, against the date-time schema.
    index = HistoryIndex.open(tmp_path / "history.db")
    client = TestClient(create_app(index), base_url=LOOPBACK)
    body = {
        "turn_id": "t",
        "session_id": "s",
        "project": "/p",
        "asked": "a",
        "answered": "b",
        "asked_at": asked_at,
    }
    response = client.post("/api/code/turns", json=body)
    assert response.status_code == 422 and index.count() == 0
    index.close()

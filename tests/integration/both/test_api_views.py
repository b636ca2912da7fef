"""The HTTP views through FastAPI's test client: a turn, a conversation, the lists, their 404s."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from history import HistoryIndex
from history.api import create_app
from history.api.views import NO_CONVERSATION, NO_TURN, NOT_IN_CONVERSATION
from tests.helpers.fakes import FakeTurnRepository
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

NOW = datetime.now(UTC).replace(microsecond=0)
KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def record(index: HistoryIndex, turn_id: str, session_id: str = "conv-1", **extra: Any) -> None:
    extra.setdefault("project", "/w/shop")
    extra.setdefault("asked", f"asked in {turn_id}")
    extra.setdefault("answered", f"answered in {turn_id}")
    extra.setdefault("asked_at", NOW - timedelta(hours=1))
    assert index.record(turn_id=turn_id, session_id=session_id, **extra)


@pytest.fixture
def client(index: HistoryIndex) -> Iterator[TestClient]:
    with TestClient(create_app(index), base_url=LOOPBACK) as test_client:
        yield test_client


def test_a_turn_is_the_stored_redacted_turn_whole(client: TestClient, index: HistoryIndex) -> None:
    when = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    posted: dict[str, Any] = {
        "turn_id": "t/1\nx",
        "session_id": "conv-1",
        "project": "/w/shop",
        "asked": f"deploy with {KEY}",
        "answered": "done " * 2_000,
        "files": ["src/auth.py"],
        "edited": ["src/login.py"],
        "tools": ["read_file"],
        "tainted": True,
        "asked_at": when.isoformat(),
    }
    assert client.post("/api/code/turns", json=posted).status_code == 201

    got = client.get(f"/api/code/turns/{quote(posted['turn_id'], safe='')}")

    assert got.status_code == 200
    body = got.json()
    assert body == {
        **posted,
        "asked": "deploy with [redacted:github-token]",
        "files": ["src/auth.py", "src/login.py"],
        "asked_at": body["asked_at"],
        "work": "",
    }
    assert datetime.fromisoformat(body["asked_at"]) == when


def test_a_conversation_in_order_and_around_a_turn(client: TestClient, index: HistoryIndex) -> None:
    for n in range(5):
        record(index, f"t{n}", asked_at=NOW - timedelta(hours=9 - n))

    whole = client.get("/api/code/sessions/conv-1").json()
    assert whole["session_id"] == "conv-1"
    assert [t["turn_id"] for t in whole["turns"]] == ["t0", "t1", "t2", "t3", "t4"]
    assert whole["turns"][2] == client.get("/api/code/turns/t2").json()
    near = client.get("/api/code/sessions/conv-1", params={"around": "t4", "radius": 1}).json()
    assert [t["turn_id"] for t in near["turns"]] == ["t3", "t4"]
    first = client.get("/api/code/sessions/conv-1", params={"around": "t0"}).json()
    assert [t["turn_id"] for t in first["turns"]] == ["t0", "t1", "t2"]


def test_unknown_ids_are_404_with_a_json_detail(client: TestClient, index: HistoryIndex) -> None:
    record(index, "t1")
    for url, params, detail in (
        ("/api/code/turns/nowhere", {}, NO_TURN),
        ("/api/code/sessions/nowhere", {}, NO_CONVERSATION),
        ("/api/code/sessions/nowhere", {"around": "t1"}, NO_CONVERSATION),
        ("/api/code/sessions/conv-1", {"around": "nowhere"}, NOT_IN_CONVERSATION),
    ):
        answer = client.get(url, params=params)
        assert (answer.status_code, answer.json()) == (404, {"detail": detail}), url


def test_conversations_page_by_next_until_null(client: TestClient, index: HistoryIndex) -> None:
    same = NOW - timedelta(hours=3)
    for n in range(5):
        record(index, f"t{n}", f"conv-{n}", asked_at=same, edited=["src/a.py"], tainted=n == 2)
    record(index, "blog", "conv-blog", project="/w/blog")

    seen: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 2, "project": "/w/shop"}
    while True:
        page = client.get("/api/code/sessions", params=params).json()
        seen += page["sessions"]
        if page["next"] is None:
            break
        assert page["next"] == page["sessions"][-1]["cursor"]
        params["before"] = page["next"]
    assert [c["session_id"] for c in seen] == [f"conv-{n}" for n in reversed(range(5))]
    assert seen[2] | {"first_asked_at": None, "last_asked_at": None, "cursor": None} == {
        "session_id": "conv-2",
        "project": "/w/shop",
        "first_asked": "asked in t2",
        "first_asked_at": None,
        "last_asked_at": None,
        "turns": 1,
        "tainted_turns": 1,
        "edited": ["src/a.py"],
        "cursor": None,
    }
    everything = client.get("/api/code/sessions").json()
    assert everything["next"] is None and everything["sessions"][0]["session_id"] == "conv-blog"
    recent = client.get("/api/code/sessions", params={"days": 1}).json()["sessions"]
    assert len(recent) == 6


def test_a_cursor_that_is_not_one_is_422_without_echoing_it(client: TestClient) -> None:
    answer = client.get("/api/code/sessions", params={"before": "secret-looking-cursor"})
    assert answer.status_code == 422
    [reason] = answer.json()["detail"]
    assert reason["loc"] == ["query", "before"] and "secret" not in answer.text


def test_projects_list_turns_and_conversations(client: TestClient, index: HistoryIndex) -> None:
    record(index, "a", "conv-a", asked_at=NOW - timedelta(days=2))
    record(index, "b", "conv-b")
    record(index, "c", "conv-c", project="/w/blog", asked_at=NOW - timedelta(days=5))
    projects = client.get("/api/code/projects").json()["projects"]
    assert [(p["project"], p["turns"], p["conversations"]) for p in projects] == [
        ("/w/shop", 2, 2),
        ("/w/blog", 1, 1),
    ]


def test_a_forgotten_conversation_leaves_every_view(
    client: TestClient, index: HistoryIndex
) -> None:
    record(index, "keep", "kept")
    record(index, "gone", "doomed", project="/w/blog")
    assert client.delete("/api/code/sessions/doomed").status_code == 200

    assert client.get("/api/code/turns/gone").status_code == 404
    assert client.get("/api/code/sessions/doomed").status_code == 404
    listed = client.get("/api/code/sessions").json()["sessions"]
    assert [c["session_id"] for c in listed] == ["kept"]
    assert [p["project"] for p in client.get("/api/code/projects").json()["projects"]] == [
        "/w/shop"
    ]


def test_the_token_guards_the_views(index: HistoryIndex) -> None:
    record(index, "t1")
    client = TestClient(create_app(index, token="s3cret"), base_url=LOOPBACK)
    urls = ["/api/code/turns/t1", "/api/code/sessions/conv-1", "/api/code/sessions"]
    urls.append("/api/code/projects")
    for url in urls:
        assert client.get(url).status_code == 401, url
        assert client.get(url, headers={"Authorization": "Bearer s3cre"}).status_code == 401
        assert client.get(url, headers={"Authorization": "Bearer s3cret"}).status_code == 200


class LockedViews(FakeTurnRepository):
    def turn(self, turn_id: str) -> None:
        raise OperationalError("SELECT", {}, Exception("database is locked"))

    def projects(self) -> list[Any]:
        raise OperationalError("SELECT", {}, Exception("disk I/O error"))


def test_an_index_that_cannot_be_read_is_503(tmp_path: Any) -> None:
    client = TestClient(create_app(HistoryIndex(LockedViews(), full_text=False)), base_url=LOOPBACK)
    for url in ("/api/code/turns/t1", "/api/code/projects"):
        answer = client.get(url)
        assert answer.status_code == 503 and "could not be read" in answer.json()["detail"]

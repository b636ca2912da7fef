"""One shape for the service's answers: a record says what it did, both deletes answer alike
(404 with a `detail` when there is nothing to forget), `project` names a project everywhere
(`workspace` still works), and a body without a JSON content type gets a plain reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from tests.helpers.loopback import LOOPBACK

TURNS = "/api/code/turns"


def turn(turn_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "session_id": "conv-1",
        "project": "/w/shop",
        "asked": "How should the login function hash passwords?",
        "answered": "argon2id.",
        "asked_at": "2026-11-02T10:00:00Z",  # without it a turn is stamped now: a new time
        **extra,
    }


@pytest.fixture
def client(index: HistoryIndex) -> Iterator[TestClient]:
    with TestClient(create_app(index), base_url=LOOPBACK) as test_client:
        yield test_client


def test_a_record_says_whether_the_turn_was_new_updated_or_unchanged(
    client: TestClient, index: HistoryIndex
) -> None:
    def outcome(body: dict[str, Any]) -> str:
        answer = client.post(TURNS, json=body)
        assert answer.status_code == 201, answer.text
        return str(answer.json()["outcome"])

    assert outcome(turn("t1")) == "new"
    assert outcome(turn("t1")) == "unchanged"
    assert outcome(turn("t1", answered="bcrypt, after all.")) == "updated"
    assert outcome(turn("t1", answered="bcrypt, after all.")) == "unchanged"
    assert outcome(turn("t2")) == "new"
    assert index.count() == 2
    [hit] = index.search("bcrypt")
    assert hit.turn_id == "t1"


def test_the_library_tells_the_same_outcomes(index: HistoryIndex) -> None:
    fields = {**turn("t1"), "asked_at": datetime(2026, 11, 2, 10, tzinfo=UTC)}
    assert index.record_outcome(**fields) == "new"
    assert index.record(**fields) is True  # record() -> bool stays as library users know it
    assert index.record_outcome(**fields) == "unchanged"
    assert index.record_outcome(**{**fields, "tainted": True}) == "updated"


def test_both_deletes_answer_alike(client: TestClient) -> None:
    client.post(TURNS, json=turn("t1"))
    client.post(TURNS, json=turn("t2", session_id="conv-2"))
    client.post(TURNS, json=turn("t3", session_id="conv-3", project="/w/blog"))

    session = client.delete("/api/code/sessions/conv-1")
    project = client.delete("/api/code/projects", params={"project": "/w/shop"})
    one = {"ok": True, "deleted": 1, "forgotten": 1}
    assert (session.status_code, session.json()) == (200, one)
    assert (project.status_code, project.json()) == (200, one)

    never = client.delete("/api/code/sessions/conv-never")
    again = client.delete("/api/code/sessions/conv-1")
    no_project = client.delete("/api/code/projects", params={"project": "/w/nowhere"})
    assert [never.status_code, again.status_code, no_project.status_code] == [404, 404, 404]
    assert never.json() == {"detail": "nothing is recorded for this conversation"}
    assert again.json() == {"detail": "this conversation was already forgotten"}
    assert no_project.json() == {
        "detail": "nothing is recorded for this project (or it was already forgotten)"
    }


def test_workspace_is_still_understood_as_project(client: TestClient, index: HistoryIndex) -> None:
    client.post(TURNS, json=turn("t1"))
    client.post(TURNS, json=turn("t2", session_id="conv-2", project="/w/blog"))
    found = client.get("/api/code/history", params={"q": "login", "workspace": "/w/blog"})
    assert [hit["turn_id"] for hit in found.json()["hits"]] == ["t2"]
    gone = client.delete("/api/code/projects", params={"workspace": "/w/shop"})
    assert gone.json() == {"ok": True, "deleted": 1, "forgotten": 1}
    both = client.delete("/api/code/projects", params={"project": "/w/blog", "workspace": "/x"})
    assert both.status_code == 200 and index.count() == 0  # `project` wins


def test_the_schema_names_project_and_not_workspace(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/code/projects"]["delete"]
    [parameter] = operation["parameters"]
    assert parameter["name"] == "project" and parameter["required"] is True


@pytest.mark.parametrize(
    "headers", [{}, {"content-type": "application/x-www-form-urlencoded"}, {"content-type": "a"}]
)
def test_a_body_that_is_not_declared_json_gets_a_plain_reason(
    client: TestClient, index: HistoryIndex, headers: dict[str, str]
) -> None:
    answer = client.post(TURNS, content=json.dumps(turn("t1")).encode(), headers=headers)
    assert answer.status_code == 415
    assert answer.json() == {
        "detail": "the body must be JSON, sent with `Content-Type: application/json` "
        "(curl: --json '{...}', or -H 'Content-Type: application/json')"
    }
    assert index.count() == 0
    charset = {"content-type": "application/json; charset=utf-8"}
    assert client.post(TURNS, content=json.dumps(turn("t1")), headers=charset).status_code == 201


def test_every_error_is_a_detail(client: TestClient) -> None:
    errors = [
        client.post(TURNS, content=b"{}", headers={"content-type": "text/plain"}),  # 415
        client.post(TURNS, json={"turn_id": "t1"}),  # 422
        client.delete("/api/code/sessions/unknown"),  # 404
        client.get("/no/such/endpoint"),  # 404
        client.post(TURNS, content=b"x" * 3_000_000, headers={"content-type": "application/json"}),
    ]
    assert [error.status_code for error in errors] == [415, 422, 404, 404, 413]
    for error in errors:
        assert set(error.json()) == {"detail"}, error.text

"""Members' keys at the service: each right and each project scope across every endpoint, 401
and 403 with a reason, a revoked key refused at its next request, the token still with every
right, and only salted digests in the database. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from history import HistoryIndex
from history.access import LOCAL_ACTOR, Right
from history.api import create_app
from history.store.sqlite.engine import database_url as sqlite_url
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

TURNS, HISTORY = "/api/code/turns", "/api/code/history"
SHOP, BANK = "/w/shop", "/w/bank"
TOKEN = "s3cret-token"


def turn(turn_id: str, session: str, project: str) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "session_id": session,
        "project": project,
        "asked": f"How should the login of {turn_id} hash passwords?",
        "answered": "Use argon2 in login() and keep the pepper out of the repository.",
    }


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def seeded(index: HistoryIndex) -> HistoryIndex:
    for turn_id, session, project in [
        ("shop-1", "s-shop", SHOP),
        ("shop-2", "s-shop", SHOP),
        ("bank-1", "s-bank", BANK),
    ]:
        assert index.record(**turn(turn_id, session, project))
    return index


@pytest.fixture
def client(seeded: HistoryIndex) -> Iterator[TestClient]:
    yield TestClient(create_app(seeded), base_url=LOOPBACK)


def add(index: HistoryIndex, name: str, rights: str, *projects: str) -> dict[str, str]:
    can = [Right(word) for word in rights.split(",")]
    return bearer(index.members.add(name, can, list(projects) or None, LOCAL_ACTOR)[1])


def test_without_a_key_in_the_database_the_local_service_stays_open(client: TestClient) -> None:
    assert client.get(HISTORY, params={"q": "login"}).status_code == 200
    assert client.post(TURNS, json=turn("t9", "s9", SHOP)).status_code == 201


def test_once_a_key_exists_every_request_needs_one(
    seeded: HistoryIndex, client: TestClient
) -> None:
    reader = add(seeded, "reader", "read")
    for headers in (
        {},
        bearer("rk_000000000000_guess"),
        bearer("not a key"),
        {"Authorization": "Basic x"},
    ):
        answer = client.get(HISTORY, params={"q": "login"}, headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"] == "Bearer"
        assert "key" in answer.json()["detail"]
    # A real key's id with another secret is as wrong as no key.
    key_id = reader["Authorization"].split("_")[1]
    forged = bearer(f"rk_{key_id}_{'A' * 43}")
    assert client.get(HISTORY, params={"q": "login"}, headers=forged).status_code == 401
    assert client.get(HISTORY, params={"q": "login"}, headers=reader).json()["hits"]
    assert client.get("/healthz").status_code == 200  # open, as the page is
    assert client.get("/").status_code == 200


# What each endpoint needs: (method, path, params, body, right).
ENDPOINTS = [
    ("GET", HISTORY, {"q": "login", "project": SHOP}, None, "read"),
    ("GET", f"{TURNS}/shop-1", {}, None, "read"),
    ("GET", "/api/code/sessions/s-shop", {}, None, "read"),
    ("GET", "/api/code/sessions", {"project": SHOP}, None, "read"),
    ("GET", "/api/code/projects", {}, None, "read"),
    ("GET", "/api/code/files", {"path": "src/a.py", "project": SHOP}, None, "read"),
    ("GET", "/openapi.json", {}, None, "read"),
    ("POST", TURNS, {}, turn("new-1", "s-new", SHOP), "record"),
    ("DELETE", "/api/code/sessions/s-bank", {}, None, "forget"),
    ("DELETE", "/api/code/projects", {"project": SHOP}, None, "forget"),
    ("GET", "/api/admin/audit", {"since": "1h"}, None, "admin"),
]


@pytest.mark.parametrize("rights", ["read", "record", "forget", "admin", "read,record,forget"])
def test_each_right_opens_its_endpoints_and_no_other(
    seeded: HistoryIndex, client: TestClient, rights: str
) -> None:
    headers = add(seeded, "member", rights)
    held = set(rights.split(","))
    # The deletes last: they would empty what the reads look at.
    for method, path, params, body, right in ENDPOINTS:
        answer = client.request(method, path, params=params, json=body, headers=headers)
        if right in held:
            assert answer.status_code in (200, 201), (method, path, answer.text)
        else:
            assert answer.status_code == 403, (method, path, answer.text)
            assert rights.split(",")[0] in answer.json()["detail"]


def test_the_token_still_has_every_right_once_keys_exist(seeded: HistoryIndex) -> None:
    client = TestClient(create_app(seeded, token=TOKEN), base_url=LOOPBACK)
    assert client.get(HISTORY, params={"q": "login"}).status_code == 401  # the token's 401
    reader = add(seeded, "reader", "read")
    # A member's key is let in beside the token, and held to its rights.
    assert client.get(HISTORY, params={"q": "login"}, headers=reader).status_code == 200
    assert client.post(TURNS, json=turn("r1", "s9", SHOP), headers=reader).status_code == 403
    for method, path, params, body, _right in ENDPOINTS:
        answer = client.request(method, path, params=params, json=body, headers=bearer(TOKEN))
        assert answer.status_code in (200, 201), (method, path, answer.text)
    assert client.get(HISTORY, params={"q": "login"}).status_code == 401


def test_a_key_limited_to_a_project_sees_and_changes_only_it(
    seeded: HistoryIndex, client: TestClient
) -> None:
    shop = add(seeded, "shop-team", "read,record,forget", SHOP)

    def get(where: str, **params: str) -> Any:
        return client.get(where, params=params, headers=shop)

    found = get(HISTORY, q="login", project=SHOP).json()["hits"]
    assert {hit["turn_id"] for hit in found} == {"shop-1", "shop-2"}
    # Naming no project, it is narrowed to its one.
    assert {hit["turn_id"] for hit in get(HISTORY, q="login").json()["hits"]} == {
        "shop-1",
        "shop-2",
    }
    listed = get("/api/code/sessions").json()["sessions"]
    assert [(s["session_id"], s["project"]) for s in listed] == [("s-shop", SHOP)]
    for refused in (
        get(HISTORY, q="login", project=BANK),
        get(HISTORY, q="login", workspace=BANK),  # the former name of the parameter
        get("/api/code/sessions", project=BANK),
        get("/api/code/files", path="src/a.py", project=BANK),
        client.post(TURNS, json=turn("bank-2", "s-bank", BANK), headers=shop),
        client.delete("/api/code/projects", params={"project": BANK}, headers=shop),
    ):
        assert refused.status_code == 403, refused.request.url
        assert SHOP in refused.json()["detail"]
    # What it names by id, in another project, is not there for it.
    assert get(f"{TURNS}/bank-1").status_code == 404
    assert get("/api/code/sessions/s-bank").status_code == 404
    assert client.delete("/api/code/sessions/s-bank", headers=shop).status_code == 404
    assert [p["project"] for p in get("/api/code/projects").json()["projects"]] == [SHOP]
    assert get(f"{TURNS}/shop-1").status_code == 200
    assert client.post(TURNS, json=turn("shop-3", "s-shop", SHOP), headers=shop).status_code == 201
    assert client.delete("/api/code/sessions/s-shop", headers=shop).json()["forgotten"] == 3
    assert seeded.search("login", BANK, None, 5)  # the other project is untouched


def test_a_key_of_several_projects_must_name_one_where_a_request_could_span_them(
    seeded: HistoryIndex, client: TestClient
) -> None:
    both = add(seeded, "two-teams", "read", SHOP, "/w/zoo")
    for path in (HISTORY, "/api/code/sessions"):
        refused = client.get(path, params={"q": "login"}, headers=both)
        assert refused.status_code == 403 and "`project`" in refused.json()["detail"]
    named = client.get(HISTORY, params={"q": "login", "project": SHOP}, headers=both)
    assert len(named.json()["hits"]) == 2
    projects = client.get("/api/code/projects", headers=both).json()["projects"]
    assert [p["project"] for p in projects] == [SHOP]


def test_a_conversation_spanning_another_project_cannot_be_forgotten_by_a_limited_key(
    seeded: HistoryIndex, client: TestClient
) -> None:
    assert seeded.record(**turn("bank-in-shop", "s-shop", BANK))
    shop = add(seeded, "shop-team", "read,forget", SHOP)
    answer = client.delete("/api/code/sessions/s-shop", headers=shop)
    assert answer.status_code == 403 and SHOP in answer.json()["detail"]
    assert seeded.turn("shop-1") is not None


def test_a_revoked_key_is_refused_at_its_next_request(
    seeded: HistoryIndex, client: TestClient
) -> None:
    key = add(seeded, "laptop", "read")
    assert client.get(HISTORY, params={"q": "login"}, headers=key).status_code == 200
    assert seeded.members.revoke("laptop", LOCAL_ACTOR)
    answer = client.get(HISTORY, params={"q": "login"}, headers=key)
    assert answer.status_code == 401 and "revoked" in answer.json()["detail"]
    # Revoking the last key does not open the service again.
    assert client.get(HISTORY, params={"q": "login"}).status_code == 401


def test_the_database_holds_only_salted_digests(
    seeded: HistoryIndex, database_url: str, backend: str
) -> None:
    keys = [add(seeded, f"m{n}", "read")["Authorization"].split()[1] for n in range(2)]
    url = database_url if backend == "postgresql" else sqlite_url(database_url)
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = [tuple(row) for row in conn.execute(text("SELECT * FROM access_keys"))]
    engine.dispose()
    stored = repr(rows)
    for key in keys:
        assert key not in stored and key.split("_", 2)[2] not in stored
    salts = {row[2] for row in rows}
    assert len(salts) == 2  # a salt of its own for each key
    if backend == "sqlite":  # nor anywhere in the file's bytes, its log included
        held = b"".join(path.read_bytes() for path in Path(database_url).parent.glob("history.db*"))
        for key in keys:
            assert key.split("_", 2)[2].encode() not in held


def test_a_limited_key_is_told_of_no_turn_id_of_another_project_a_prefix_starts(
    seeded: HistoryIndex, client: TestClient
) -> None:
    for turn_id, session, project in [
        ("prefix00-shop", "s-shop", SHOP),
        ("prefix00-bank-1", "s-bank", BANK),
        ("prefix00-bank-2", "s-bank", BANK),
    ]:
        assert seeded.record(**turn(turn_id, session, project))
    shop = add(seeded, "shop-team", "read", SHOP)
    bank = add(seeded, "bank-team", "read", BANK)
    admin = add(seeded, "admin", "read")
    assert client.get(f"{TURNS}/prefix00", headers=admin).json()["count"] == 3
    # The one turn of its project that the prefix starts opens; the others are not there.
    opened = client.get(f"{TURNS}/prefix00", headers=shop)
    assert opened.status_code == 200 and opened.json()["turn_id"] == "prefix00-shop"
    several = client.get(f"{TURNS}/prefix00", headers=bank)
    assert several.status_code == 409
    assert several.json()["candidates"] == ["prefix00-bank-1", "prefix00-bank-2"]
    assert several.json()["count"] == 2

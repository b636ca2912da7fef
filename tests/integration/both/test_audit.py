"""The audit trail: every forget, retention run, key added or revoked is a row (when, which key,
what, how many turns) and no row holds a turn's text; `GET /api/admin/audit` needs its own
right; `recall audit` lists it. On SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from history import HistoryIndex
from history.access import LOCAL_ACTOR, Action, AuditEvent, Right
from history.api import create_app
from history.store.sqlite.engine import database_url as sqlite_url
from tests.helpers.cli_runs import recall
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

# Words only the turns' text holds: none may be in the audit table.
SECRET_WORDS = ("quokka", "marzipan", "zeppelin")


def turn(turn_id: str, session: str, project: str, days_ago: int = 0) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "session_id": session,
        "project": project,
        "asked": f"why does the quokka {turn_id} eat marzipan",
        "answered": "because the zeppelin landed",
        "asked_at": datetime.now(UTC) - timedelta(days=days_ago),
    }


def audit_table(database_url: str, backend: str) -> list[tuple[Any, ...]]:
    url = database_url if backend == "postgresql" else sqlite_url(database_url)
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = [tuple(row) for row in conn.execute(text("SELECT * FROM audit_events ORDER BY id"))]
    engine.dispose()
    return rows


def test_every_forget_retention_and_key_is_audited_without_text(
    index: HistoryIndex, database_url: str, backend: str
) -> None:
    for args in [
        turn("a1", "s-a", "/w/shop"),
        turn("a2", "s-a", "/w/shop"),
        turn("b1", "s-b", "/w/bank"),
        turn("b2", "s-b2", "/w/bank"),
        turn("old", "s-old", "/w/zoo", days_ago=400),
    ]:
        assert index.record(**args)
    forgetter = index.members.add("ops", [Right.FORGET, Right.READ], None, LOCAL_ACTOR)[1]
    client = TestClient(create_app(index), base_url=LOOPBACK)
    auth = {"Authorization": f"Bearer {forgetter}"}
    assert client.delete("/api/code/sessions/s-a", headers=auth).json()["forgotten"] == 2
    gone = client.delete("/api/code/projects", params={"project": "/w/bank"}, headers=auth)
    assert gone.status_code == 200
    assert index.retain(365) == 1
    assert index.members.revoke("ops", LOCAL_ACTOR)

    events = [
        (e.actor, e.action.value, e.session_id, e.project, e.turns, e.key_name)
        for e in index.members.events()
    ]
    assert events == [
        (LOCAL_ACTOR, "key-added", None, None, None, "ops"),
        ("ops", "forget-session", "s-a", None, 2, None),
        ("ops", "forget-project", None, "/w/bank", 2, None),
        (LOCAL_ACTOR, "retention", None, None, 1, None),
        (LOCAL_ACTOR, "key-revoked", None, None, None, "ops"),
    ]
    stored = repr(audit_table(database_url, backend))
    assert len(audit_table(database_url, backend)) == 5
    for word in SECRET_WORDS:
        assert word not in stored
    assert forgetter.split("_", 2)[2] not in stored


def test_the_audit_endpoint_needs_the_admin_right(index: HistoryIndex) -> None:
    assert index.record(**turn("a1", "s-a", "/w/shop"))
    index.forget_session("s-a")
    reader = index.members.add("reader", [Right.READ], None, LOCAL_ACTOR)[1]
    admin = index.members.add("auditor", [Right.ADMIN], None, LOCAL_ACTOR)[1]
    client = TestClient(create_app(index), base_url=LOOPBACK)

    def audit(key: str, **params: str) -> Any:
        return client.get(
            "/api/admin/audit", params=params, headers={"Authorization": f"Bearer {key}"}
        )

    refused = audit(reader)
    assert refused.status_code == 403 and "audit" in refused.json()["detail"]
    events = audit(admin).json()["events"]
    assert next((e["action"], e["session_id"], e["turns"]) for e in events) == (
        "forget-session",
        "s-a",
        1,
    )
    assert [e["key_name"] for e in events if e["action"] == "key-added"] == ["reader", "auditor"]
    assert len(audit(admin, since="1h").json()["events"]) == 3
    two_days_ago = datetime.now(UTC) - timedelta(days=2)
    index.members.note(AuditEvent(two_days_ago, "old", Action.FORGET_SESSION, "s-0", turns=1))
    assert len(audit(admin).json()["events"]) == 4
    assert len(audit(admin, since="1h").json()["events"]) == 3
    assert len(audit(admin, since="3d").json()["events"]) == 4
    assert audit(admin, since="forever").status_code == 422
    assert not any(word in json.dumps(events) for word in SECRET_WORDS)


def test_recall_audit_lists_the_trail(
    index: HistoryIndex, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--database-url", database_url]
    code, _out, err = recall(capsys, *where, "audit")
    assert code == 1 and "nothing" in err
    assert index.record(**turn("a1", "s-a", "/w/shop"))
    code, key, _err = recall(capsys, *where, "keys", "add", "ci", "--can", "record")
    assert code == 0 and key.startswith("rk_")
    code, out, _err = recall(capsys, *where, "forget", "--session", "s-a", "--yes")
    assert code == 0, out
    code, out, _err = recall(capsys, *where, "audit", "--since", "7d")
    lines = out.splitlines()
    assert code == 0 and "key-added key=ci" in lines[0] and "forget-session session=s-a" in lines[1]
    code, out, _err = recall(capsys, *where, "audit", "--json")
    assert [row["action"] for row in json.loads(out)] == ["key-added", "forget-session"]
    assert not any(word in out for word in SECRET_WORDS)
    code, _out, err = recall(capsys, *where, "audit", "--since", "soon")
    assert code == 2 and "30m, 12h or 7d" in err


def test_keys_list_and_revoke_from_the_command_line(
    index: HistoryIndex, database_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    where = ["--database-url", database_url]
    code, key, err = recall(
        capsys, *where, "keys", "add", "bot", "--can", "read", "--project", "/w/shop"
    )
    assert code == 0 and "shown this once" in err
    code, out, _err = recall(capsys, *where, "keys", "list")
    assert out.split("\t")[:4] == ["bot", f"rk_{key.split('_')[1]}_…", "read", "/w/shop"]
    assert key.strip().split("_", 2)[2] not in out
    assert recall(capsys, *where, "keys", "add", "bot", "--can", "read")[0] == 2
    assert recall(capsys, *where, "keys", "add", "x", "--can", "fly")[0] == 2
    assert recall(capsys, *where, "keys", "revoke", "bot")[0] == 0
    assert recall(capsys, *where, "keys", "revoke", "bot")[0] == 1
    code, out, _err = recall(capsys, *where, "keys", "list", "--json")
    (listed,) = json.loads(out)
    assert listed["name"] == "bot" and listed["revoked_at"] and listed["projects"] == ["/w/shop"]


def test_a_retention_setting_applied_by_the_upkeep_is_audited(index: HistoryIndex) -> None:
    assert index.record(**turn("old", "s-old", "/w/zoo", days_ago=400))
    assert index.record(**turn("new", "s-new", "/w/zoo"))
    index.set_retention(365)
    assert index.tidy()
    (event,) = index.members.events()
    assert (event.actor, event.action.value, event.turns) == ("retention settings", "retention", 1)
    assert index.turn("new") is not None


def test_the_service_may_listen_beyond_loopback_once_keys_guard_it(
    index: HistoryIndex, database_url: str
) -> None:
    from history.api.server import guarded_by_keys

    assert not guarded_by_keys(None, database_url)
    index.members.add("ci", [Right.RECORD], None, LOCAL_ACTOR)
    assert guarded_by_keys(None, database_url)

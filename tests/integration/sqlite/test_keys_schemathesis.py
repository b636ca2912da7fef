"""Schemathesis with members' keys of each kind, in process over ASGI: every answer is a non-5xx
status the operation documents, matching its schema, and a key never gets a 2xx from an
operation its rights or projects do not allow."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import Case, GenerationMode

from history.access import LOCAL_ACTOR, Right
from history.api import create_app
from tests.helpers.templates import new_index

# `/api/code/files` is left out as in tests/integration/sqlite/test_api_schemathesis.py: its
# 400 for a relative path without `project` is not in its schema;
# tests/integration/both/test_keys.py holds it to its key's rights.
OPERATIONS = {
    ("POST", "/api/code/turns"): Right.RECORD,
    ("GET", "/api/code/history"): Right.READ,
    ("DELETE", "/api/code/sessions/{session_id}"): Right.FORGET,
    ("DELETE", "/api/code/projects"): Right.FORGET,
    ("GET", "/api/code/turns/{turn_id}"): Right.READ,
    ("GET", "/api/code/sessions/{session_id}"): Right.READ,
    ("GET", "/api/code/sessions"): Right.READ,
    ("GET", "/api/code/projects"): Right.READ,
    ("GET", "/api/admin/audit"): Right.ADMIN,
}
KINDS = {
    "read": ([Right.READ], None),
    "record": ([Right.RECORD], None),
    "forget": ([Right.FORGET], None),
    "admin": ([Right.ADMIN], None),
    "everything-in-one-project": (list(Right), ["/w/shop"]),
}


@pytest.mark.parametrize("kind", KINDS)
def test_keys_of_each_kind_get_only_documented_answers_and_only_their_rights(
    tmp_path: Path, kind: str
) -> None:
    index = new_index(tmp_path / "history.db")
    index.record(turn_id="t1", session_id="c1", project="/w/shop", asked="login?", answered="ok")
    (cursor,) = [c.cursor for c in index.conversations()]
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(index))
    rights, projects = KINDS[kind]
    key = index.members.add(kind, rights, projects, LOCAL_ACTOR)[1]
    headers = {"Authorization": f"Bearer {key}"}
    scoped = {index.members.project(p) for p in projects} if projects else None

    def allowed(case: Case[Any], right: Right) -> bool:
        if right not in rights:
            return False
        body = case.body if isinstance(case.body, dict) else {}
        named = (case.query or {}).get("project") or body.get("project")
        if scoped is None or not isinstance(named, str) or not named.strip():
            return True
        try:
            return index.members.project(named) in scoped
        except ValueError:
            return True

    def checker(operation: object, right: Right) -> object:
        @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))  # type: ignore[attr-defined]
        @settings(
            max_examples=8,
            derandomize=bool(os.environ.get("CI")),
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: Case[Any]) -> None:
            if "before" in (case.query or {}):
                case.query["before"] = cursor  # valid only as the service made it
            response = case.call_and_validate(headers=headers)
            if response.status_code < 300:
                assert allowed(case, right), (case.method, case.path, case.query)
            if right not in rights:
                assert response.status_code == 403, (case.method, case.path)

        return check

    for (method, path), right in OPERATIONS.items():
        checker(schema[path][method], right)()  # type: ignore[operator]
    index.close()

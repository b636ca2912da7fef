"""Schemathesis against the app's own OpenAPI document, in process over ASGI (no network).

Each operation gets 30 valid and 30 invalid requests (derandomized when CI is set). Every answer
must be a non-5xx status the operation documents, with a body matching its schema, and invalid
requests must be refused. (schemathesis' lazy `from_fixture` does not run under pytest 9, so the
Hypothesis test is built here per operation.)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import Case, GenerationMode

from history.api import create_app
from tests.helpers.templates import new_index

OPERATIONS = [
    ("POST", "/api/code/turns"),
    ("GET", "/api/code/history"),
    ("DELETE", "/api/code/sessions/{session_id}"),
    ("DELETE", "/api/code/projects"),
    ("GET", "/healthz"),
    ("GET", "/api/code/turns/{turn_id}"),
    ("GET", "/api/code/sessions/{session_id}"),
    ("GET", "/api/code/sessions"),
    ("GET", "/api/code/projects"),
]

NOTHING_INVALID_TO_SEND = {
    ("GET", "/healthz"): "it takes no input",
    ("GET", "/api/code/projects"): "it takes no input",
    # Its only invalid values (empty, NUL, over 1000 characters) are ones schemathesis will not
    # put in a URL path; tests/integration/both/test_api.py sends them.
    ("DELETE", "/api/code/sessions/{session_id}"): "schemathesis generates no invalid path for it",
    ("GET", "/api/code/turns/{turn_id}"): "schemathesis generates no invalid path for it",
}


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_no_5xx_and_every_response_matches_the_schema(
    tmp_path: Path, method: str, path: str, mode: GenerationMode
) -> None:
    if mode is GenerationMode.NEGATIVE and (method, path) in NOTHING_INVALID_TO_SEND:
        pytest.skip(NOTHING_INVALID_TO_SEND[method, path])
    index = new_index(tmp_path / "history.db")
    index.record(
        turn_id="t1",
        session_id="conv-1",
        project="/w/shop",
        asked="How should the login function hash passwords?",
        answered="Use argon2.",
        edited=["src/login.py"],
    )
    # A cursor is valid when the service made it, which no schema can say: positive cases page
    # from a real one.
    (cursor,) = [c.cursor for c in index.conversations()]
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(index))
    operation = schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=30,
        derandomize=bool(os.environ.get("CI")),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Case[Any]) -> None:
        if mode is GenerationMode.POSITIVE and "before" in (case.query or {}):
            case.query["before"] = cursor
        case.call_and_validate()

    try:
        check()
    finally:
        index.close()

"""Regression: while a large forget was owed, SQLite hid the conversations it still deleted in
Python, after the SQL `LIMIT`: `conversations(limit=3)` answered [] with 7 conversations to show,
and the HTTP list's `next` was null, so the page, `recall sessions` and the API stopped paging
early. They are hidden in the SQL of the views now, on both backends.

A large forget lists its conversations in `forget_work` (one short transaction) before its
steps delete their turns; a forget cut short by a crash leaves them listed. The tests list them
so, by hand, and look at every view while they are.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from history import HistoryIndex
from history.api import create_app
from tests.helpers.engines import engine_of
from tests.helpers.loopback import LOOPBACK

pytestmark = pytest.mark.both_backends

SHOP, GONE = "/w/shop", "/w/gone"
NOW = datetime.now(UTC)
VISIBLE = [f"kept-talk-{n}" for n in range(7)]
# The newest conversations: those a forget under way is still deleting.
DELETING = [f"doomed-talk-{n}" for n in range(3)]
_LISTED = text(
    "INSERT INTO forget_work (session_id, project, owed_at) VALUES (:session, :project, :now)"
)


def conversation(index: HistoryIndex, session: str, project: str, hours_ago: float) -> None:
    for turn in range(2):
        assert index.record(
            turn_id=f"{session}:{turn}",
            session_id=session,
            project=project,
            asked=f"question {turn} of {session}",
            answered="an answer",
            files=["src/app.py"],
            asked_at=NOW - timedelta(hours=hours_ago, minutes=turn),
        )


@pytest.fixture
def forgetting(index: HistoryIndex) -> HistoryIndex:
    """Seven conversations to show; three newer ones of the same project, and a whole newer
    project, listed as a forget's owed work."""
    for n, session in enumerate(VISIBLE):
        conversation(index, session, SHOP, hours_ago=20 - n)
    for n, session in enumerate(DELETING):
        conversation(index, session, SHOP, hours_ago=5 - n)
    conversation(index, "gone-0", GONE, hours_ago=1)
    with engine_of(index).begin() as conn:
        for session in DELETING:  # a forget of sessions: of every project
            conn.execute(_LISTED, {"session": session, "project": None, "now": NOW})
        conn.execute(_LISTED, {"session": "gone-0", "project": GONE, "now": NOW})
    return index


def test_a_page_of_conversations_is_full_while_a_large_forget_is_owed(
    forgetting: HistoryIndex,
) -> None:
    first = forgetting.conversations(limit=3)
    assert [c.session_id for c in first] == ["kept-talk-6", "kept-talk-5", "kept-talk-4"]
    seen, before = [], None
    while page := forgetting.conversations(limit=3, before=before):
        seen += [c.session_id for c in page]
        before = page[-1].cursor
    assert seen == list(reversed(VISIBLE))
    assert [c.session_id for c in forgetting.conversations(project=SHOP, limit=2)] == [
        "kept-talk-6",
        "kept-talk-5",
    ]


def test_the_http_list_pages_through_every_visible_conversation_while_a_forget_is_owed(
    forgetting: HistoryIndex,
) -> None:
    seen: list[str] = []
    with TestClient(create_app(forgetting), base_url=LOOPBACK) as client:
        params: dict[str, str | int] = {"limit": 3}
        while True:
            body = client.get("/api/code/sessions", params=params).json()
            seen += [c["session_id"] for c in body["sessions"]]
            if body["next"] is None:
                break
            params["before"] = body["next"]
    assert seen == list(reversed(VISIBLE))


def test_no_view_shows_what_a_forget_under_way_still_deletes(forgetting: HistoryIndex) -> None:
    assert (
        forgetting.turn("doomed-talk-0:0") is None and forgetting.turn("kept-talk-0:0") is not None
    )
    assert (
        forgetting.conversation("doomed-talk-1") == [] and forgetting.conversation("gone-0") == []
    )
    assert forgetting.turn_ids_by_prefix("doomed-talk-2:") == []
    assert forgetting.turn_ids_by_prefix("kept-talk-1:") == ["kept-talk-1:0", "kept-talk-1:1"]
    assert [p.project for p in forgetting.projects()] == [SHOP]
    rows = {c.id for c in forgetting.file_candidates("src/app.py", None)}
    shown = forgetting.turns_by_row(sorted(rows))
    assert sorted(turn.session_id for turn in shown.values()) == sorted(VISIBLE * 2)

"""Reading what was found, through the library: a turn, a conversation, the lists of
conversations and projects, on a real index."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from history import ConversationSummary, HistoryIndex, Turn

pytestmark = pytest.mark.both_backends

NOW = datetime.now(UTC).replace(microsecond=0)
KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def record(index: HistoryIndex, turn_id: str, session_id: str, **extra: Any) -> None:
    extra.setdefault("project", "/work/shop")
    extra.setdefault("asked", f"question of {turn_id}")
    extra.setdefault("answered", f"answer of {turn_id}")
    extra.setdefault("asked_at", NOW - timedelta(hours=1))
    assert index.record(turn_id=turn_id, session_id=session_id, **extra)


def ids(turns: list[Turn]) -> list[str]:
    return [turn.turn_id for turn in turns]


def test_every_view_returns_exactly_the_stored_redacted_text(index: HistoryIndex) -> None:
    asked = f"Deploy with {KEY}, then\n  check   the login flow."
    record(
        index,
        "t1",
        "conv-1",
        asked=asked,
        answered=f"Done; the token {KEY} is set.",
        files=["README.md"],
        edited=[f"/tmp/{KEY}.env"],
        tools=["shell"],
        tainted=True,
        asked_at=NOW - timedelta(days=2),
    )
    masked = "[redacted:github-token]"
    expected = Turn(
        turn_id="t1",
        session_id="conv-1",
        project="/work/shop",
        asked_at=NOW - timedelta(days=2),
        tainted=True,
        asked=f"Deploy with {masked}, then\n  check   the login flow.",
        answered=f"Done; the token {masked} is set.",
        files=("README.md", f"/tmp/{masked}.env"),
        edited=(f"/tmp/{masked}.env",),
        tools=("shell",),
    )

    assert index.turn("t1") == expected
    assert index.conversation("conv-1") == [expected]
    assert index.conversation("conv-1", around="t1", radius=0) == [expected]
    (hit,) = index.search("login", project="/work/shop")
    assert Turn(**{k: v for k, v in vars(hit).items() if k != "score"}) == expected
    (summary,) = index.conversations()
    assert summary == ConversationSummary(
        session_id="conv-1",
        project="/work/shop",
        first_asked=f"Deploy with {masked}, then check the login flow.",
        first_asked_at=NOW - timedelta(days=2),
        last_asked_at=NOW - timedelta(days=2),
        turns=1,
        tainted_turns=1,
        edited=(f"/tmp/{masked}.env",),
    )
    assert KEY not in repr([index.projects(), summary])


def test_a_conversation_is_in_time_order_and_equal_times_keep_the_recording_order(
    index: HistoryIndex,
) -> None:
    same = NOW - timedelta(hours=2)
    for turn_id in ("c", "a", "b"):
        record(index, turn_id, "conv", asked_at=same)
    record(index, "late", "conv", asked_at=NOW - timedelta(hours=1))
    record(index, "early", "conv", asked_at=NOW - timedelta(hours=3))
    record(index, "a", "conv", asked_at=same, answered="recorded again")  # keeps its place

    assert ids(index.conversation("conv")) == ["early", "c", "a", "b", "late"]
    assert index.conversation("conv")[2].answered == "recorded again"


def test_around_the_first_and_the_last_turn_stops_at_the_ends(index: HistoryIndex) -> None:
    for n in range(6):
        record(index, f"t{n}", "conv", asked_at=NOW - timedelta(minutes=60 - n))
    record(index, "elsewhere", "other")

    assert ids(index.conversation("conv", around="t0", radius=2)) == ["t0", "t1", "t2"]
    assert ids(index.conversation("conv", around="t5", radius=2)) == ["t3", "t4", "t5"]
    assert ids(index.conversation("conv", around="t3", radius=1)) == ["t2", "t3", "t4"]
    assert ids(index.conversation("conv", around="t3", radius=0)) == ["t3"]
    assert ids(index.conversation("conv", around="t2", radius=50)) == [f"t{n}" for n in range(6)]
    assert index.conversation("conv", around="elsewhere") == []
    assert index.conversation("conv", around="nowhere") == []
    assert index.conversation("nowhere") == []
    assert index.turn("nowhere") is None
    with pytest.raises(ValueError):
        index.conversation("conv", around="t0", radius=-1)


def page_through(index: HistoryIndex, limit: int, **scope: Any) -> list[ConversationSummary]:
    pages: list[ConversationSummary] = []
    before = None
    while page := index.conversations(limit=limit, before=before, **scope):
        assert len(page) <= limit
        pages += page
        before = page[-1].cursor
    return pages


def test_conversations_page_newest_first_and_equal_times_neither_repeat_nor_skip(
    index: HistoryIndex,
) -> None:
    same = NOW - timedelta(hours=5)
    for n in range(7):
        record(index, f"tie-{n}", f"tie-{n}", asked_at=same)
        record(index, f"tie-{n}-b", f"tie-{n}", asked_at=same, project="/work/blog")
    record(index, "new", "newest", asked_at=NOW - timedelta(minutes=1))
    record(index, "old", "oldest", asked_at=NOW - timedelta(days=30))

    everything = index.conversations(limit=100)
    keys = [(c.session_id, c.project) for c in everything]
    assert keys[0] == ("newest", "/work/shop") and keys[-1] == ("oldest", "/work/shop")
    ties = keys[1:-1]  # same time: by session id, then project, both descending
    assert ties == sorted(ties, reverse=True) and len(ties) == 14
    for limit in (1, 2, 3, 50):
        assert page_through(index, limit) == everything
    blog = page_through(index, 2, project="/work/blog")
    assert [c.session_id for c in blog] == [f"tie-{n}" for n in reversed(range(7))]
    assert {c.project for c in blog} == {"/work/blog"}


def test_conversations_summarise_their_turns(index: HistoryIndex) -> None:
    record(index, "t1", "conv", asked="First, the login form.", edited=["a.py", "b.py"])
    record(index, "t2", "conv", tainted=True, edited=["b.py"], asked_at=NOW - timedelta(minutes=5))
    record(index, "t0", "conv", asked="x" * 500, asked_at=NOW - timedelta(days=1))
    (conversation,) = index.conversations()
    assert conversation.first_asked == "x" * 199 + "…"
    assert conversation.first_asked_at == NOW - timedelta(days=1)
    assert conversation.last_asked_at == NOW - timedelta(minutes=5)
    assert (conversation.turns, conversation.tainted_turns) == (3, 1)
    assert conversation.edited == ("b.py", "a.py")  # most edited first


def test_days_and_project_narrow_the_list(index: HistoryIndex) -> None:
    record(index, "recent", "recent", asked_at=NOW - timedelta(days=1))
    record(index, "old", "old", asked_at=NOW - timedelta(days=20))
    record(index, "blog", "blog", project="/work/./blog", asked_at=NOW - timedelta(days=1))
    assert [c.session_id for c in index.conversations(days=7)] == ["recent", "blog"]
    assert [c.session_id for c in index.conversations(project="/work/blog/")] == ["blog"]
    assert [c.session_id for c in index.conversations(project="/work/shop", days=30)] == [
        "recent",
        "old",
    ]
    for bad in ({"days": 0}, {"limit": 0}, {"before": "not a cursor"}, {"before": ""}):
        with pytest.raises(ValueError):
            index.conversations(**bad)


def test_projects_count_turns_and_conversations(index: HistoryIndex) -> None:
    record(index, "a1", "a", asked_at=NOW - timedelta(days=3))
    record(index, "a2", "a", asked_at=NOW - timedelta(days=1))
    record(index, "b1", "b", asked_at=NOW - timedelta(days=2))
    record(index, "c1", "c", project="/work/blog", asked_at=NOW - timedelta(hours=1))

    blog, shop = index.projects()
    assert (blog.project, blog.turns, blog.conversations) == ("/work/blog", 1, 1)
    assert (shop.project, shop.turns, shop.conversations) == ("/work/shop", 3, 2)
    assert (shop.first_asked_at, shop.last_asked_at) == (
        NOW - timedelta(days=3),
        NOW - timedelta(days=1),
    )


@pytest.mark.parametrize("how", ["session", "project"])
def test_a_forgotten_conversation_is_gone_from_every_view_at_once(
    index: HistoryIndex, how: str
) -> None:
    record(index, "keep", "kept", asked_at=NOW - timedelta(days=1))
    record(index, "gone-1", "doomed", project="/work/blog", asked_at=NOW - timedelta(days=3))
    record(index, "gone-2", "doomed", project="/work/blog", edited=["a.py"])
    assert len(index.projects()) == 2

    if how == "session":
        assert index.forget_session("doomed") == 2
    else:
        assert index.forget_project("/work/blog") == 2

    assert index.turn("gone-1") is None and index.turn("gone-2") is None
    assert index.conversation("doomed") == [] and index.conversation("doomed", "gone-1") == []
    assert [c.session_id for c in index.conversations()] == ["kept"]
    assert index.conversations(project="/work/blog") == []
    assert [p.project for p in index.projects()] == ["/work/shop"]
    assert ids(index.conversation("kept")) == ["keep"]


def test_a_turn_recorded_again_with_other_facts_moves_in_the_summaries(
    index: HistoryIndex,
) -> None:
    record(index, "t1", "conv", edited=["a.py"], tainted=True, asked_at=NOW - timedelta(days=2))
    record(index, "t2", "conv", asked_at=NOW - timedelta(days=1))
    record(index, "t1", "conv", project="/work/blog", edited=["b.py"], asked_at=NOW)

    shop, blog = sorted(index.conversations(), key=lambda c: c.project, reverse=True)
    assert (shop.project, shop.turns, shop.tainted_turns, shop.edited) == ("/work/shop", 1, 0, ())
    assert shop.first_asked_at == shop.last_asked_at == NOW - timedelta(days=1)
    assert (blog.project, blog.turns, blog.tainted_turns, blog.edited) == (
        "/work/blog",
        1,
        0,
        ("b.py",),
    )
    assert [(p.project, p.turns, p.conversations) for p in index.projects()] == [
        ("/work/blog", 1, 1),
        ("/work/shop", 1, 1),
    ]
    assert ids(index.conversation("conv")) == ["t2", "t1"]

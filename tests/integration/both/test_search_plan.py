"""The final top k of a search (history/store/search_plan.py): when more turns tie at the k-th
best score than k, the newest of them are shown, whatever order they were recorded in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from history import HistoryIndex


@pytest.mark.parametrize("newest_first", [False, True], ids=["oldest first", "newest first"])
def test_among_more_tied_turns_than_k_the_newest_are_shown(
    any_index: HistoryIndex, newest_first: bool
) -> None:
    now = datetime.now(UTC)
    days_ago = range(1, 7) if newest_first else range(6, 0, -1)
    for n, days in enumerate(days_ago):
        any_index.record(
            turn_id=f"{days} days ago",
            session_id=f"s{n}",
            project="/w/zoo",
            asked="zebra parser",
            answered="done",
            asked_at=now - timedelta(days=days),
        )
    hits = any_index.search("zebra", k=3)
    assert [hit.turn_id for hit in hits] == ["1 days ago", "2 days ago", "3 days ago"]
    assert len({hit.score for hit in hits}) == 1

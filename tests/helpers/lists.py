"""The common words' lists (history/store/sqlite/best_turns.py) in small test data: the settings
that make a few hundred turns take the paths a million would, and the check that the ranking
library can build them."""

from __future__ import annotations

import pytest

from history import HistoryIndex
from history.store.sqlite import best_turns
from tests.helpers.engines import engine_of


def use_small_lists(monkeypatch: pytest.MonkeyPatch, up_to_share: float = 1.0) -> None:
    """Every word in 5% of the turns or more gets a list (however few turns that is), up to
    `up_to_share` of them, each list its best 6 turns."""
    monkeypatch.setattr(best_turns, "LIST_FROM_ROWS", 1)
    monkeypatch.setattr(best_turns, "LIST_FROM_SHARE", 0.05)
    monkeypatch.setattr(best_turns, "LIST_UP_TO_SHARE", up_to_share)
    monkeypatch.setattr(best_turns, "DEPTH", 6)


def lists_compiled(index: HistoryIndex) -> HistoryIndex:
    """`index`, once its ranking library is known to build the common words' lists (the test
    is skipped where the library predates recall_best_turns)."""
    with engine_of(index).connect() as conn:
        if not best_turns.compiled(conn):
            pytest.skip("the ranking library was built before recall_best_turns: rebuild it")
    return index

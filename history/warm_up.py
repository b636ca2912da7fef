"""Readying a long-running process's searches (`recall serve`): before people search, a few
searches of the newest conversations' words run on each connection the store keeps for searches,
in a thread, so that the first searches people make do not pay what a new connection's first
statements cost. On PostgreSQL that is planning each statement over 64 partitions, 6-14 ms a
statement at a million turns, a new connection's every-project search p95 60-68 ms where a
connection that has searched before answers in 35-39 (bench/RESULTS.md); each statement's plan
is then kept for any words (search.py). SQLite has nothing to ready."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from history.domain import ConversationSummary
from history.query import terms

if TYPE_CHECKING:
    from history.index import HistoryIndex

log = logging.getLogger(__name__)

# Searches per connection, each in every project and in its conversation's project: 1 to 4
# words, so that the kinds of statement a search runs (its words counted, ranked in one
# statement or in parts: at 1M turns, 90-115 kinds) are planned before; 40 plan ~60 of them,
# and cost ~9 s of a service's start at 1M, in the background (bench/RESULTS.md).
QUERIES = 40
K = 5  # the service's default


def queries(recent: Sequence[ConversationSummary]) -> list[tuple[str, str]]:
    """(words, project) for each recent conversation with a word to search: the first 1, 2, 3
    or 4 words its first question asked."""
    asked: list[tuple[str, str]] = []
    for summary in recent:
        words = terms(summary.first_asked)[: 1 + len(asked) % 4]
        if words:
            asked.append((" ".join(words), summary.project))
    return asked


def in_background(index: HistoryIndex) -> threading.Thread:
    """Ready the index's searches in a daemon thread; a failure is a log line, never the
    service's (the searches are then only slower at first)."""

    def warm() -> None:
        try:
            index.warm_searches()
        except Exception as exc:  # the process serves without it
            log.warning("searches not readied before use: %s", type(exc).__name__)

    thread = threading.Thread(target=warm, name="recall-warm-searches", daemon=True)
    thread.start()
    return thread

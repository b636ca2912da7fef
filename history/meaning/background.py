"""Embedding in the background of a long-running process (`recall serve`, `recall mcp`): a
thread that embeds a batch, then rests as long as the batch took (at most half of one core), and
sleeps while nothing waits. It never holds the write lock while the model runs (vectors.py), so
a record never waits for it; it stops when the index closes."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from history.meaning.search import MeaningSearch
from history.meaning.vectors import embed_step

log = logging.getLogger(__name__)

BATCH = 8
IDLE_SECONDS = 10.0
FAILED_SECONDS = 60.0


def run(meaning: MeaningSearch, closed: Callable[[], bool]) -> None:
    """Embed in bounded steps until `closed()` (in the thread HistoryIndex.embed_in_background
    started)."""
    while not closed():
        started = time.monotonic()
        try:
            # Counted first: the model is loaded only once some turn waits for it.
            done = meaning.waiting() and embed_step(meaning.engine, meaning.embedder, BATCH)
        except Exception as exc:  # the next try may do better; search stays lexical
            log.warning("embedding turns for search by meaning failed: %s", type(exc).__name__)
            _sleep(FAILED_SECONDS, closed)
            continue
        _sleep(time.monotonic() - started if done else IDLE_SECONDS, closed)


def _sleep(seconds: float, closed: Callable[[], bool]) -> None:
    """Rest `seconds`, waking early when the index closes."""
    deadline = time.monotonic() + seconds
    while not closed() and time.monotonic() < deadline:
        time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))

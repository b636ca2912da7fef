"""Embedding in the background of a long-running process (`recall serve`, `recall mcp`): a
thread that embeds a batch, then rests as long as the batch took (at most half of one core), and
sleeps while nothing waits. It never holds the write lock while the model runs (vectors.py), so
a record never waits for it; it stops when the index closes."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from history.meaning.search import MeaningSearch
from history.meaning.vectors import embed_step

log = logging.getLogger(__name__)

BATCH = 8
IDLE_SECONDS = 10.0
FAILED_SECONDS = 60.0


def start(meaning: MeaningSearch, closed: Callable[[], bool]) -> threading.Thread:
    def run() -> None:
        while not closed():
            started = time.monotonic()
            try:
                done = embed_step(meaning.engine, meaning.embedder, BATCH)
            except Exception as exc:  # the next try may do better; search stays lexical
                log.warning("embedding turns for search by meaning failed: %s", exc)
                time.sleep(FAILED_SECONDS)
                continue
            time.sleep(time.monotonic() - started if done else IDLE_SECONDS)

    thread = threading.Thread(target=run, name="recall-embed", daemon=True)
    thread.start()
    return thread

"""FastAPI keeps every endpoint it has classified in module-level caches (4,096 entries each):
an app made per test, with its closures over the test's index, outlived the test, and a worker
of the suite ended up holding ~1.3M objects that each full garbage collection walked again
(~9 s of a 130 s run) and the interpreter walked again at exit (seconds per worker)."""

from __future__ import annotations

import fastapi.dependencies.models


def forget_classified_endpoints() -> None:
    """Empty the caches: the next app made classifies its endpoints again (microseconds)."""
    for value in vars(fastapi.dependencies.models).values():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()

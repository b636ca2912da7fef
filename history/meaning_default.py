"""Whether a search blends in search by meaning when its caller does not say: where the
`meaning` extra is installed, unless RECALL_MEANING=0 (RECALL_MEANING=1 asks for it even where
only a model given by the caller can embed: tests). Outside history.meaning's modules that
import numpy: the check only looks for the packages (~0.2 ms), so a process that searches by the
words alone loads nothing for it."""

from __future__ import annotations

import os

ENVIRONMENT = "RECALL_MEANING"


def meaning_by_default() -> bool:
    chosen = os.environ.get(ENVIRONMENT)
    if chosen in ("0", "1"):
        return chosen == "1"
    from history import meaning

    return meaning.installed()

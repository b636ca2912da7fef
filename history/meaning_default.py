"""Whether a search blends in search by meaning when its caller does not say: where
RECALL_MEANING=1. Outside history.meaning, whose package sets the BLAS threads when imported,
so that a process that only searches by the words need not import it to ask."""

from __future__ import annotations

import os

ENVIRONMENT = "RECALL_MEANING"


def meaning_by_default() -> bool:
    return os.environ.get(ENVIRONMENT) == "1"

"""recall_bm25, FTS5's bm25() with each word's document frequency handed in instead of counted
(fts5_rank.c, compiled by `pip install -e .` where a C compiler is there), loaded into each new
connection when it can be.

bm25() reads the whole posting list of every word in a MATCH before it scores a row, and a
search runs several statements, each naming the query's commonest words again. With the counts
the search already keeps (fts_search), recall_bm25 scores the same rows to the same bits without
that read. Where the library is missing or will not load (no compiler at install, a driver
without extension loading), the connection has bm25() alone and the search uses it.

The library also brings recall_index_text in C, in place of the Python function of that name the
engine registers first: the same text for FTS5
(tests/integration/sqlite/test_index_text_compiled.py), without a call into Python for each
text column of each row a trigger indexes or deletes.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

FUNCTION = "recall_bm25"
# recall_phrases(turns_fts): which phrases of the MATCH a row holds, one bit each.
PHRASES = "recall_phrases"
# recall_scored(): how many rows the connection's last statement scored with recall_bm25.
SCORED = "recall_scored"
_MODULE = "history.store.sqlite._recallrank"
# Set (to anything) to search with bm25() even where the library loads: to compare the two.
DISABLE_VARIABLE = "RECALL_NO_RANK_EXTENSION"


def library_path() -> str | None:
    """The compiled library, if this install has one (and it is not disabled)."""
    if os.environ.get(DISABLE_VARIABLE):
        return None
    try:
        spec = importlib.util.find_spec(_MODULE)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.origin else None


def load(dbapi_conn: Any) -> bool:
    """Load recall_bm25 into a new connection: False, and the connection as it was, when the
    library is missing or the driver or SQLite refuses it."""
    path = library_path()
    if path is None:
        return False
    try:
        dbapi_conn.enable_load_extension(True)
        try:
            dbapi_conn.load_extension(path)
        finally:
            dbapi_conn.enable_load_extension(False)
    except Exception:  # whatever the reason, the search ranks with bm25()
        return False
    return True

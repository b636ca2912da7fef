"""Another program's SQLite database, read without disturbing it.

The file is opened read-only (`mode=ro`), so nothing is ever written to it or created beside it;
`query_only` holds that for every statement; and a short busy timeout means a database its owner
is busy writing costs a moment and a problem sentence, never a wait on the owner's lock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

BUSY_SECONDS = 0.2


@contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    with closing(
        sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
    ) as db:
        db.execute("PRAGMA query_only = ON")
        yield db


def tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

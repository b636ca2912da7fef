"""The index rewrite of a large forget frees pages without writing zeros over each, then zeroes
what is left on the free list once.

With `secure_delete` ON, SQLite writes zeros over every page it frees: during the rewrite of the
full-text index, one page written for each page the merge writes, a third of the rewrite's time
at a million turns. FAST zeroes what is deleted inside the pages it writes anyway, and every page
it allocates, but leaves a freed page as it was, forgotten words and all, on the free list; the
rewrite takes most of those back for the segment it writes. So the rewrite runs FAST and, before
the scrub is settled, fills the free list with rows of zeros in a scratch table (each page taken
is zeroed first), then deletes them and drops the table: its pages go back to the free list
holding nothing but zeros and b-tree headers. A step at a time, like the rest of the scrub.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection

SCRATCH = "recall_zeroed_pages"
# What a page holds beside one row's payload (its header, the cell's, the cell pointer).
PAGE_OVERHEAD = 64


@contextmanager
def freeing_fast(conn: Connection) -> Iterator[None]:
    """Free pages without zeroing them for the length of the block."""
    conn.exec_driver_sql("PRAGMA secure_delete = FAST")
    try:
        yield
    finally:
        conn.exec_driver_sql("PRAGMA secure_delete = ON")


def zero_step(conn: Connection, pages: int) -> bool:
    """Zero about `pages` free pages, or delete as many rows of zeros once the free list is all
    taken; False once the scratch table is gone (the free list holding nothing else)."""
    emptying = _emptying(conn)
    if not emptying:
        free = int(conn.exec_driver_sql("PRAGMA freelist_count").scalar_one())
        if free:
            size = int(conn.exec_driver_sql("PRAGMA page_size").scalar_one()) - PAGE_OVERHEAD
            conn.exec_driver_sql(f"CREATE TABLE IF NOT EXISTS {SCRATCH} (zeros BLOB)")
            conn.exec_driver_sql(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                f"INSERT INTO {SCRATCH} (zeros) SELECT zeroblob(?) FROM n",
                (min(pages, free), size),
            )
            return True
        if emptying is None:
            return False  # nothing was free
        # Every free page taken and zeroed: from here on the rows go, and their pages are free.
        conn.exec_driver_sql(f"INSERT INTO {SCRATCH} (rowid, zeros) VALUES (0, NULL)")
        return True
    with freeing_fast(conn):  # the rows are zeros: their pages may be freed as they are
        deleted = conn.exec_driver_sql(
            f"DELETE FROM {SCRATCH} WHERE rowid IN "
            f"(SELECT rowid FROM {SCRATCH} WHERE rowid > 0 ORDER BY rowid DESC LIMIT ?)",
            (pages,),
        ).rowcount
        if deleted:
            return True
        conn.exec_driver_sql(f"DROP TABLE {SCRATCH}")
    return False


def _emptying(conn: Connection) -> bool | None:
    """None: no scratch table; False: it is filling the free list; True: it is being emptied."""
    found = conn.exec_driver_sql(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (SCRATCH,)
    ).first()
    if found is None:
        return None
    marked = conn.exec_driver_sql(f"SELECT 1 FROM {SCRATCH} WHERE rowid = 0").first()
    return marked is not None

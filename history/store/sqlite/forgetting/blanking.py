"""An expiry empties its turns' text before it deletes any of them.

FTS5 aside, SQLite's `secure_delete` zeroes a row's bytes when the row is deleted, but not the
copy left behind when a deletion rebalances the table's b-tree: the cells moved to a sibling page
stay, as they were, in the unused middle of the page they left. A forget deletes whole
conversations; an expiry deletes old turns scattered among ones that stay, and rows it deletes
later may be moved (and copied) by its earlier deletions. So every turn an expiry lists is first
rewritten empty, in place (a smaller row stays in its page, the old bytes zeroed), in batches;
the deletion that follows can then only move emptied rows.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from history.store.rows import chunks
from history.store.sqlite import fts

EMPTY = "asked = '', answered = '', files = '[]', edited = '[]', tools = '[]', work = ''"
_NOT_EMPTY = (
    "(t.asked <> '' OR t.answered <> '' OR t.files <> '[]' OR t.edited <> '[]'"
    " OR t.tools <> '[]' OR t.work <> '')"
)
_TO_EMPTY = text(
    "SELECT t.id FROM forget_work w JOIN turns t ON t.session_id = w.session_id"
    " AND t.project = w.project AND t.asked_at < w.asked_before"
    f" WHERE w.asked_before IS NOT NULL AND {_NOT_EMPTY} ORDER BY w.id LIMIT :n"
)


def empty_step(conn: Connection, turns: int, secure_delete: bool) -> int:
    """Empty up to `turns` of the turns expiries list; the number emptied (0: none left)."""
    ids = list(conn.execute(_TO_EMPTY, {"n": turns}).scalars())
    if not ids:
        return 0
    if secure_delete:  # the index is rewritten afterwards, as after a large forget
        conn.exec_driver_sql(fts.secure_delete_statement(on=False))
    try:
        empty(conn, ids)
    finally:
        if secure_delete:
            conn.exec_driver_sql(fts.secure_delete_statement(on=True))
    return len(ids)


def empty(conn: Connection, ids: list[int]) -> None:
    """The turns' text emptied in place, and their vectors (search by meaning) with it."""
    for chunk in chunks(ids):
        marks = ", ".join("?" * len(chunk))
        conn.exec_driver_sql(f"UPDATE turns SET {EMPTY} WHERE id IN ({marks})", tuple(chunk))
        conn.exec_driver_sql(
            f"UPDATE turn_vectors SET vector = x'' WHERE turn_id IN ({marks})", tuple(chunk)
        )

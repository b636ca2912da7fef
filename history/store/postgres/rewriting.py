"""An every-project search beside a partition being rewritten: the other partitions answer.

A forget's scrub rewrites each partition that held forgotten rows, holding it ACCESS EXCLUSIVE
for the seconds its copy takes (scrub.py; at a million turns, tens of seconds for a large
project's). An every-project search reads every partition, so it would wait for the whole
rewrite (at a million turns one waited 24 s; past 24 lock timeouts it failed). Instead it waits
one lock timeout at most, SEARCH_WAIT_MS; then it asks which partitions a rewrite holds (or
queues for) and searches the others: each of its statements reads, where it said
`FROM turns`, the union of the partitions left, and its answer says it is partial (the turns
of the partitions held are not in it). A one-project search reads its own partition only, so
only that one's rewrite holds it up, for as long; then it reads the others, which hold none of
the project's turns: it finds nothing, and says why (rather than wait, at a million turns, tens
of seconds, and fail after 24 lock timeouts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, event, text

from history.store.postgres import schema
from history.store.postgres.engine import LOCK_TIMEOUT_MS

# How long an every-project search waits for a partition before it leaves the partition out:
# the engine's lock timeout. A rewrite shorter than that (most are, below a million turns) is
# waited for and the answer is whole. Not shorter: measured at 100k with searchers searching
# without pause beside a forget, waiting 1 s and then every search asking first which partitions
# were held put 3x the quiet p95 on every-project search (a union of 63 partitions is planned
# afresh for each new statement), where waiting kept it at 1.5x.
SEARCH_WAIT_MS = LOCK_TIMEOUT_MS

_HELD = text(
    "SELECT DISTINCT c.relname FROM pg_locks l"
    f" JOIN ({schema.PARTITIONS}) t ON t.relid = l.relation"
    " JOIN pg_class c ON c.oid = t.relid"
    " WHERE l.mode = 'AccessExclusiveLock' AND l.pid <> pg_backend_pid()"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " ORDER BY c.relname"
)
_EVERY_PARTITION = text(schema.PARTITION_NAMES)
_FROM_TURNS = re.compile(r"\bFROM turns\b")


def held(conn: Connection) -> tuple[str, ...]:
    """The partitions another session holds or waits to hold exclusively (a rewrite)."""
    return tuple(conn.execute(_HELD).scalars())


def without(statement: str, partitions: Sequence[str]) -> str:
    """`statement` reading the union of `partitions` wherever it read `turns`."""
    union = " UNION ALL ".join(f"SELECT * FROM {name}" for name in partitions)
    # Every partition held: the partitioned table alone, which holds no row.
    union = union or "SELECT * FROM ONLY turns"
    return _FROM_TURNS.sub(f"FROM ({union}) AS turns", statement)


@contextmanager
def leaving_out(conn: Connection, skipped: Sequence[str]) -> Iterator[None]:
    """For the length of the block, `conn`'s statements read every partition of `turns` but
    `skipped` (none left out when `skipped` is empty). They are prepared as the search's others
    are (search.py): an every-project search beside the same rewrite runs its plan again."""
    if not skipped:
        yield
        return
    every = conn.execute(_EVERY_PARTITION).scalars()
    left = [name for name in every if name not in skipped]

    def rewrite(
        _conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool
    ) -> tuple[str, Any]:
        return without(statement, left), parameters

    event.listen(conn, "before_cursor_execute", rewrite, retval=True)
    try:
        yield
    finally:
        event.remove(conn, "before_cursor_execute", rewrite)

"""The nearest vectors found by the database itself: PostgreSQL with pgvector, whose
`turn_neighbours` (revision 0023) keeps every vector of `turn_vectors` again, as a halfvec, in an
HNSW graph per partition of the projects. A process that searches once (`recall search`) asks
the server instead of reading the vectors from the table: the server walks the graph of the
project's partition, or of every partition one after another (bench/RESULTS.md, 100k turns, a
process's first search: 5.9 against 115 ms in one project, 255 against 625 ms in every project;
at 1M, reading every vector is 0.38 GB). A long-running process keeps its matrix (meaning/
search.py): once loaded it is faster (0.3 against 3-16 ms in one project, 3.5 against 52 ms in
every project) and exact in one project, where the graph's recall of the exact 50 fell to 0.26 in
a project of 36,838 random vectors.

The graph's answer is approximate (as the matrix's approximate index is for every project); a
scan goes on past a first batch of candidates that fail the filter (`iterative_scan`), so a
search of one project among several in a partition, or of one model while another re-embeds,
still gets its `k`. The scores are the matrix's: the stored int8 values over 127 times the query
(inner product), to a half-float's precision."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text

from history.store.postgres.pgvector import graphs_kept

DIMENSIONS = 384  # turn_neighbours' halfvec width (revision 0023)
# Candidates the graph walk keeps (pgvector's default is 40, fewer than a search asks for).
EF_SEARCH = 100
# A partition whose graph a forget's scrub is rebuilding (VACUUM FULL: minutes for a large one)
# is waited for this long, then the search's words answer alone (index.py logs why).
LOCK_WAIT_MS = 500

_SETTINGS = (
    f"SET LOCAL lock_timeout = {LOCK_WAIT_MS}",
    f"SET LOCAL hnsw.ef_search = {EF_SEARCH}",
    "SET LOCAL hnsw.iterative_scan = relaxed_order",
)
_NEAREST = (
    "SELECT turn_id, -(nearby <#> CAST(:query AS halfvec)) AS score FROM turn_neighbours"
    " WHERE model = :model{project} ORDER BY nearby <#> CAST(:query AS halfvec) LIMIT :k"
)
_EVERY = text(_NEAREST.format(project=""))
_ONE = text(_NEAREST.format(project=" AND project = :project"))


def held(conn: Connection) -> bool:
    """Whether this database keeps the vectors in a graph of the server's (PostgreSQL with
    pgvector, migrated past revision 0023)."""
    if conn.dialect.name != "postgresql":
        return False
    found = graphs_kept(conn)
    conn.rollback()
    return found


def nearest(
    conn: Connection, model: str, query: Any, k: int, project: str | None = None
) -> list[tuple[int, float]]:
    """The `k` rowids nearest `query` (a unit vector of DIMENSIONS) with their score, best
    first; only `project`'s (its stored key) when given."""
    if k < 1:
        return []
    literal = "[" + ",".join(f"{float(x):.6g}" for x in query) + "]"
    with conn.begin():
        for setting in _SETTINGS:
            conn.exec_driver_sql(setting)
        values: dict[str, Any] = {"query": literal, "model": model, "k": k}
        if project is None:
            found = conn.execute(_EVERY, values).all()
        else:
            found = conn.execute(_ONE, {**values, "project": project}).all()
    # relaxed_order: the scan's answer may be slightly out of order.
    return sorted(((int(row), float(score)) for row, score in found), key=lambda x: -x[1])

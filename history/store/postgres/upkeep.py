"""The index upkeep PostgreSQL leaves to us: merging GIN's pending list, and fresh statistics.

New entries of the full-text index wait in GIN's pending list, which every search reads
through; upkeep merges it into the index once writes pause. Search weighs common words by
ANALYZE's statistics of `search_vector` (statistics.py): after many writes (an import) upkeep
refreshes them rather than waiting for autovacuum, and with them the sample of each project's
common words that project-scoped searches plan by (project_words.py).
"""

from __future__ import annotations

from sqlalchemy import Engine, text

from history.store.postgres import project_index, project_words, schema

# ANALYZE once this share of the rows (and at least this many) changed since the last one.
STALE_SHARE, STALE_ROWS = 0.1, 1_000
# The full-text index and the project's (project_index.py): a project-scoped search reads the
# latter's pending list through as the every-project search reads the former's.
# Each partition's index (revision 0019): a partitioned index has no pending list of its own.
_CLEAN_PENDING = text(
    "SELECT sum(gin_clean_pending_list(t.inhrelid))"
    f" FROM unnest(ARRAY['{schema.VECTOR_INDEX}', '{project_index.INDEX}']) AS name,"
    " pg_inherits AS t WHERE t.inhparent = CAST(name AS regclass)"
)
# The rows changed since each partition's statistics, or since the whole table's (which the
# every-project search reads, and which autovacuum, analyzing partitions only, never renews).
_CHANGED = text(
    "SELECT greatest(sum(s.n_mod_since_analyze), abs(sum(s.n_live_tup) - max(p.reltuples)))"
    f"::bigint, sum(s.n_live_tup)::bigint FROM ({schema.PARTITIONS}) t"
    " JOIN pg_stat_user_tables s ON s.relid = t.relid"
    " CROSS JOIN (SELECT greatest(reltuples, 0) AS reltuples FROM pg_class"
    " WHERE oid = 'turns'::regclass) p"
)


def merge_pending(engine: Engine) -> bool:
    """Merge GIN's pending list into the index; True when there was something to merge."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        merged = conn.execute(_CLEAN_PENDING).scalar_one()
    return bool(merged)


def analyze_if_stale(engine: Engine) -> bool:
    """ANALYZE turns and sample each project's common words when many rows changed since
    that last ran; True when it ran."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        found = conn.execute(_CHANGED).first()
        if found is None or found[0] is None:
            return False
        changed, rows = found
        if changed < max(STALE_ROWS, STALE_SHARE * rows):
            return False
        conn.exec_driver_sql("ANALYZE turns")
    with engine.begin() as conn:
        project_words.refill(conn)
    return True

"""Making forgotten turns unrecoverable from PostgreSQL's files.

A DELETE only marks rows dead: their bytes stay in the table's pages until VACUUM prunes them,
and even then PostgreSQL compacts a page without zeroing the space it freed. GIN never removes a
word from its tree once indexed, even when no row holds it any more. So the scrub rewrites:
`VACUUM FULL` copies the live rows into new files, rebuilds every index from them, and unlinks
the old files. `turns` is partitioned by a hash of the project (revision 0019) and each deleted
row notes its partition (`scrub_partitions`), so the scrub rewrites only those partitions, one
at a time, each holding its own lock for the seconds its copy takes: a search of another project
never waits, a record or an every-project search waits for one partition at most. The tables
beside them a forget deletes from (`BESIDE`: the live turns waiting while their partition is
rewritten, and the turns' vectors) are rewritten last, whenever their files hold a page.

It waits for no reader: a snapshot older than the forget (which could still see the rows and
keeps them in the copy), or a lock held on a partition past LOCK_TIMEOUT_MS, leaves the scrub
owed, in the database (`owed_scrub`, with the forget's transaction id; the partitions not yet
rewritten stay noted), for whichever process comes next. WAL segments written before it
recycle later; backups are yours.
"""

from __future__ import annotations

import logging

from sqlalchemy import Connection, Engine, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import DBAPIError

from history.store import owed
from history.store.postgres import schema, waiting

log = logging.getLogger(__name__)

_XID = text("SELECT pg_current_xact_id()::text")
# One process rewrites at a time (an advisory lock of this database): every process's upkeep
# takes up an owed scrub, and two would rewrite the same partition twice, the second queued for
# its lock meanwhile, and every statement that reads it queued behind that. A process waits
# for its turn up to the engine's lock timeout, then reads what is still owed.
_TURN = "hashtext('recall-history scrub')"
_TAKE_TURN = text(f"SELECT pg_advisory_lock({_TURN})")
_GIVE_TURN = text(f"SELECT pg_advisory_unlock({_TURN})")
# The rewrite keeps every row some snapshot may still see. A transaction that began before the
# forget committed (in any database of the server: it holds back every snapshot's horizon), or
# a snapshot, replication slot or prepared transaction of this database no newer than it, may.
_OLDER_SNAPSHOTS = text(
    "WITH forget AS (SELECT CAST(:full_xid AS xid8) AS full_xid, CAST(:xid AS xid) AS xid)"
    " SELECT pg_snapshot_xmin(pg_current_snapshot()) <= full_xid"
    " OR EXISTS (SELECT FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
    " AND datname = current_database() AND age(backend_xmin) >= age(xid))"
    " OR EXISTS (SELECT FROM pg_replication_slots WHERE age(xmin) >= age(xid))"
    " OR EXISTS (SELECT FROM pg_prepared_xacts WHERE age(transaction) >= age(xid))"
    " FROM forget"
)
# A rewrite waiting for a partition's lock holds up every statement queued behind it: it gives
# up soon, and the next upkeep tries again.
LOCK_TIMEOUT_MS = 500
# The rewrite rebuilds every index of a partition while it holds it: sorting more of a GIN
# build in memory (the server's default is 64 MB) shortens that.
_REWRITE_MEMORY = "SET maintenance_work_mem = '256MB'"
# The rewrite does not ANALYZE: the statistics of a partition's vector and of its two expression
# indexes (each sampled row's index functions computed anew) took 17 s of the largest
# partition's 44 s at 1M, and a forget of a few turns changes none of them. Once the scrub is
# done, a partition whose rows moved by STALE_SHARE is analyzed (autovacuum's rule, which a
# server may have off), holding no lock a search or a record waits for: moved in this rewrite
# (`reltuples`, the rows the last ANALYZE or VACUUM counted, -1 if none did), or since its
# statistics were taken (the server's count, which may lag a second behind the forget's delete).
STALE_SHARE, STALE_ROWS = 0.1, 50
_ROWS_OF = text(
    "SELECT c.reltuples, coalesce(s.n_mod_since_analyze, 0) FROM pg_class AS c"
    " LEFT JOIN pg_stat_user_tables AS s ON s.relid = c.oid"
    " WHERE c.oid = CAST(:partition AS regclass)"
)
# Tables beside the partitions that a forget leaves dead rows in: `turns_waiting` (waiting.py:
# the turns it moved into `turns` or a forget deleted) and `turn_vectors` (revision 0021's
# trigger deletes a forgotten turn's vector). Noted like a partition whenever their files hold a
# page, and rewritten after the partitions.
BESIDE = ("turns_waiting", "turn_vectors")
_BESIDE_LIST = ", ".join(f"'{table}'" for table in BESIDE)
_NOTE_BESIDE = text(
    "INSERT INTO scrub_partitions AS s (partition, since_xid)"
    " SELECT t, pg_current_xact_id()::text"
    f" FROM unnest(ARRAY[{_BESIDE_LIST}]) t WHERE pg_relation_size(t::regclass) > 0"
    " ON CONFLICT (partition) DO UPDATE SET since_xid = excluded.since_xid"
)
_NOTED = text(
    "SELECT partition, since_xid FROM scrub_partitions"
    f" ORDER BY partition IN ({_BESIDE_LIST}), partition"
)
_EVERY_PARTITION = text(schema.PARTITION_NAMES)
_NOTE_EVERY = text(
    "INSERT INTO scrub_partitions AS s (partition, since_xid)"
    f" SELECT c.relname, pg_current_xact_id()::text FROM ({schema.PARTITIONS}) t"
    " JOIN pg_class c ON c.oid = t.relid"
    " ON CONFLICT (partition) DO UPDATE SET since_xid = excluded.since_xid"
)
_REWRITTEN = text("DELETE FROM scrub_partitions WHERE partition = :partition AND since_xid = :xid")


class Scrub:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def owed(self, conn: Connection, every_partition: bool = False) -> None:
        """Called inside the forget's transaction: the scrub is owed from its commit on. The
        deleted rows noted their partitions; rows changed in place (a re-scan) did not, so
        `every_partition` notes them all."""
        xid = str(conn.execute(_XID).scalar_one())
        owed.owe_scrub(conn, insert, since_xid=xid)
        if every_partition:
            conn.execute(_NOTE_EVERY)
        conn.execute(_NOTE_BESIDE)

    def run(self) -> bool:
        """Rewrite the partitions a forget left dead rows in; False when a reader holds it
        back (the partitions rewritten so far are done), or another process is rewriting."""
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            try:
                conn.execute(_TAKE_TURN)
            except DBAPIError:  # lock_timeout: another process is rewriting
                return False
            try:
                return self._run()
            finally:
                conn.execute(_GIVE_TURN)

    def _run(self) -> bool:
        with self.engine.connect() as conn:
            row = owed.scrub(conn)
            noted = [(str(p), str(x)) for p, x in conn.execute(_NOTED)]
            if row is not None and not noted:
                # Owed before the partitions were noted (a forget before revision 0019).
                noted = [(str(p), "") for p in conn.execute(_EVERY_PARTITION).scalars()]
            conn.rollback()
        if row is None:
            return True
        xid = row.since_xid or "0"
        stale: list[str] = []
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            # xid8 counts wrap-arounds; pg_stat_activity shows the 32-bit xid.
            wrapped = str(int(xid) % 2**32)
            if conn.execute(_OLDER_SNAPSHOTS, {"full_xid": xid, "xid": wrapped}).scalar_one():
                return False
            try:
                conn.exec_driver_sql(_REWRITE_MEMORY)
                conn.exec_driver_sql(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
                for partition, since in noted:
                    if not self._rewrite(conn, partition, since, stale):
                        return False
            finally:
                conn.exec_driver_sql("RESET maintenance_work_mem")
                conn.exec_driver_sql("RESET lock_timeout")
        with self.engine.begin() as conn:
            owed.settle(conn, row.owed_at)
        waiting.move(self.engine)  # the live turns that met a partition being rewritten
        _analyze(self.engine, stale)
        return True

    def _rewrite(self, conn: Connection, partition: str, since: str, stale: list[str]) -> bool:
        """VACUUM FULL one partition; `stale` gets it when its rows moved by STALE_SHARE."""
        quoted = conn.dialect.identifier_preparer.quote(partition)
        before, _ = conn.execute(_ROWS_OF, {"partition": quoted}).one()
        try:
            conn.exec_driver_sql(f"VACUUM FULL {quoted}")
        except DBAPIError as exc:  # lock_timeout: a reader or writer holds the partition
            log.info("rewriting %s waited too long: %s", partition, type(exc.orig).__name__)
            return False
        conn.execute(_REWRITTEN, {"partition": partition, "xid": since})
        after, changed = conn.execute(_ROWS_OF, {"partition": quoted}).one()
        moved = max(abs(before - after), changed)
        if before < 0 or moved >= STALE_ROWS + STALE_SHARE * max(before, after):
            stale.append(quoted)
        return True

    def pending(self) -> bool:
        with self.engine.connect() as conn:
            return owed.scrub_owed(conn)


def _analyze(engine: Engine, partitions: list[str]) -> None:
    """Renew the statistics of the partitions a forget changed much (best effort: upkeep's
    analyze_if_stale catches up on what is left)."""
    if not partitions:
        return
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        try:
            conn.exec_driver_sql(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
            for quoted in partitions:
                conn.exec_driver_sql(f"ANALYZE {quoted}")
        except DBAPIError as exc:  # another ANALYZE or VACUUM holds the partition
            log.info("analyzing after the scrub waited too long: %s", type(exc.orig).__name__)
        finally:
            conn.exec_driver_sql("RESET lock_timeout")

"""Making forgotten turns unrecoverable from PostgreSQL's files.

A DELETE only marks rows dead: their bytes stay in the table's pages until VACUUM prunes them,
and even then PostgreSQL compacts a page without zeroing the space it freed. GIN never removes a
word from its tree once indexed, even when no row holds it any more. So the scrub rewrites the
table: `VACUUM FULL` copies the live rows into new files, rebuilds every index from them, and
unlinks the old files. It waits for no reader: a reader's lock (or a snapshot older than the
forget, which could still see the rows and keeps them in the copy) leaves the scrub owed, in the
database (`owed_scrub`, with the forget's transaction id), for whichever process comes next.
WAL segments written before it recycle later; backups are yours.
"""

from __future__ import annotations

import logging

from sqlalchemy import Connection, Engine, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import DBAPIError

from history.store import owed

log = logging.getLogger(__name__)

_XID = text("SELECT pg_current_xact_id()::text")
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
_REWRITE = "VACUUM (FULL, ANALYZE) turns"
# The rewrite rebuilds every index of turns while it holds the table: sorting more of a GIN
# build in memory (the server's default is 64 MB) shortens that.
_REWRITE_MEMORY = "SET maintenance_work_mem = '256MB'"


class Scrub:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def owed(self, conn: Connection) -> None:
        """Called inside the forget's transaction: the scrub is owed from its commit on."""
        xid = str(conn.execute(_XID).scalar_one())
        owed.owe_scrub(conn, insert, since_xid=xid)

    def run(self) -> bool:
        """Rewrite the table if a forget left dead rows; False when a reader holds it back."""
        with self.engine.connect() as conn:
            row = owed.scrub(conn)
            conn.rollback()
        if row is None:
            return True
        xid = row.since_xid or "0"
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            # xid8 counts wrap-arounds; pg_stat_activity shows the 32-bit xid.
            wrapped = str(int(xid) % 2**32)
            if conn.execute(_OLDER_SNAPSHOTS, {"full_xid": xid, "xid": wrapped}).scalar_one():
                return False
            try:
                conn.exec_driver_sql(_REWRITE_MEMORY)
                conn.exec_driver_sql(_REWRITE)
            except DBAPIError as exc:  # lock_timeout: a reader or writer holds the table
                log.info("rewriting turns waited too long: %s", type(exc.orig).__name__)
                return False
            finally:
                conn.exec_driver_sql("RESET maintenance_work_mem")
        with self.engine.begin() as conn:
            owed.settle(conn, row.owed_at)
        return True

    def pending(self) -> bool:
        with self.engine.connect() as conn:
            return owed.scrub_owed(conn)

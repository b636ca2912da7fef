"""Searching a current SQLite file through the driver alone: what `recall search` and the MCP
server's recall_history do with a file that needs nothing else, without SQLAlchemy and the
store's modules (their import was ~75% of what `recall mcp` imports beyond the MCP SDK).

The search is the store's own (fts_search.py, over reads.DriverConnection), and what the index
does around it is done as HistoryIndex does it (history/index.py `_search`, the repository's
`search`): the project's stored key, the retention's cutoffs and margin, the hits read whole.
Each question is asked in one read transaction, which first checks that the file is current
as the hook's direct write means it (direct.py `current`: at head, no forget under way or
scrub owed, no re-scan due, so no hit to hide or mask) and that it has its full-text index.
Anything else, or any error of the driver, answers None and the caller asks HistoryIndex,
which migrates, finishes owed work, hides and masks. tests/test_direct_search.py holds the
two paths to the same answers.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from history.domain import SearchResults
from history.projects import project_key
from history.retention import RETENTION_MARGIN, RetentionPolicy
from history.store.row_values import hits
from history.store.sqlite.connection import BUSY_TIMEOUT_MS, FTS_TABLE, set_up, sqlite_driver
from history.store.sqlite.direct import current, retention
from history.store.sqlite.fts_search import FtsSearch, stored_time
from history.store.sqlite.reads import DriverConnection

log = logging.getLogger(__name__)

T = TypeVar("T")


class Reading:
    """One read transaction of a current file."""

    def __init__(self, conn: Any, ranked: bool, fts: FtsSearch, mask: Callable[[str], str]):
        self.conn, self.ranked, self._fts, self._mask = conn, ranked, fts, mask
        self.sql = DriverConnection(conn)

    def _one(self, sql: str, *values: Any) -> Any:
        return self.sql.exec_driver_sql(sql, values).scalar()

    def scope(self, raw: str) -> str:
        """The key a read looks for (history/stored_forms.py `scope`)."""
        key = project_key(raw)
        if self._one("SELECT 1 FROM projects WHERE project = ?", key) is not None:
            return key
        masked = "SELECT 1 FROM projects WHERE project LIKE '%' || ? || '%' LIMIT 1"
        if self._one(masked, "redacted") is None:
            return key
        return self._mask(raw)

    def search(
        self, terms: Sequence[str], project: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        """HistoryIndex._search's words-only search (`terms` not empty, `project` raw)."""
        scope = self.scope(project) if project is not None else None
        policy, now = retention(self.conn), datetime.now(UTC)
        if policy:
            cutoff = policy.cutoff(scope, now) if scope is not None else policy.loosest(now)
            if cutoff is not None and (since is None or since < cutoff):
                since = cutoff
        if not policy or scope is not None or not policy.named():
            return self._ranked(terms, scope, since, k)
        found = self._ranked(terms, scope, since, k + RETENTION_MARGIN)
        kept = [hit for hit in found if not policy.expired(hit.project, hit.asked_at, now)]
        return found.like(kept[:k])

    def _ranked(
        self, terms: Sequence[str], scope: str | None, since: datetime | None, k: int
    ) -> SearchResults:
        return hits(self._fts.search_on(self.sql, self.ranked, terms, scope, since, k))

    def vectors_stored(self) -> bool:
        """Some turn has a vector for search by meaning (the repository's `vectors_stored`)."""
        return self._one("SELECT 1 FROM turn_vectors LIMIT 1") is not None

    def count(self, project: str | None) -> int | None:
        """The turns search can find (the repository's `count`); None where projects keep
        turns for different times."""
        policy = retention(self.conn)
        if policy.named():
            return None
        conditions, values = _kept(policy)
        if project is not None:
            conditions.append("project = ?")
            values.append(self.scope(project))
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        return int(self._one(f"SELECT count(*) FROM turns{where}", *values))


def _kept(policy: RetentionPolicy) -> tuple[list[str], list[Any]]:
    default = policy.default_cutoff(datetime.now(UTC)) if policy else None
    if default is None:
        return [], []
    return ["asked_at >= ?"], [stored_time(default)]


class DirectSearch:
    """The searches of one SQLite file through one connection of the driver, kept open (a
    long-lived MCP server asks many), one question at a time."""

    def __init__(
        self, database: Path, mask: Callable[[str], str], busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        self.database = database
        self._mask = mask
        self._timeout_ms = busy_timeout_ms
        self._conn: Any = None
        self._file: tuple[int, int] | None = None  # the file the connection has open
        self._ranked = False
        self._fts = FtsSearch(None)  # its word counts cached from one search to the next
        self._lock = threading.Lock()

    def ask(self, question: Callable[[Reading], T]) -> T | None:
        """`question`'s answer, read in one transaction; None when the file is not current or
        the driver failed (the caller asks HistoryIndex)."""
        driver = sqlite_driver()
        with self._lock:
            try:
                conn = self._connection()
                conn.execute("BEGIN")
                try:
                    if not current(conn) or not _indexed(conn):
                        return None
                    return question(Reading(conn, self._ranked, self._fts, self._mask))
                finally:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")  # nothing was written
            except (driver.Error, OSError) as exc:
                log.debug("searching directly gave way to the whole path: %s", type(exc).__name__)
                self._close()
                return None

    def _connection(self) -> Any:
        """The open connection, made again when the home's file is another one than it opened
        (a damaged file moved aside, a copy put back): a long-lived server reads the file there
        now, as the index does once it reopens."""
        status = os.stat(self.database)
        found = (status.st_dev, status.st_ino)
        if self._conn is not None and found != self._file:
            self._close()
        if self._conn is None:
            driver = sqlite_driver()
            conn = driver.connect(
                str(self.database), timeout=self._timeout_ms / 1000, check_same_thread=False
            )
            try:
                _bulk, self._ranked = set_up(conn, self._timeout_ms)
            except BaseException:
                conn.close()
                raise
            self._conn, self._file = conn, found
        return self._conn

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def close(self) -> None:
        with self._lock:
            self._close()


def _indexed(conn: Any) -> bool:
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (FTS_TABLE,)
    ).fetchone()
    return found is not None

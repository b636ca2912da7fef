"""Searching from a process that mostly searches (`recall search`, the MCP server's first
answer): straight from the home's SQLite file when it is current, through the driver alone,
without opening a HistoryIndex and the SQLAlchemy it stands on; through HistoryIndex otherwise.

`ReadingIndex` answers `search` and `count` as HistoryIndex does (history/store/sqlite/
direct_search.py says what "current" takes and reads); anything else it is asked, and any
search the file or the query needs more for (a migration, a forget under way, a re-scan due,
search by meaning, a URL, a file it may not write), goes to the home's HistoryIndex, opened
then (`history_for`). tests/integration/sqlite/test_direct_search.py holds the two paths to the
same answers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from history import limits
from history.domain import SearchResults
from history.home import (
    DATABASE_NAME,
    configured_url,
    ensure_private_dir,
    ensure_private_file,
    id_key_path,
    resolve_home,
)
from history.meaning_default import meaning_by_default
from history.query import terms

if TYPE_CHECKING:
    from history.index import HistoryIndex
    from history.store.sqlite.direct_search import DirectSearch, Reading


def direct_database(
    home: str | os.PathLike[str] | None = None, database_url: str | None = None
) -> tuple[Path, Path] | None:
    """The home's SQLite file and the home, when a process may use the file through the
    driver alone (write it: history/direct_record.py; search it: here); None when the caller
    should open the index (`history_for`) instead."""
    if configured_url(database_url) is not None:
        return None
    where = resolve_home(home)
    database = (where / DATABASE_NAME).resolve()  # as the index names it (engine.database_url)
    try:
        if not database.is_file() or database.stat().st_size == 0:
            return None  # made and migrated by the whole path
        if not all(
            os.access(path, os.W_OK)
            for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm"))
            if path == database or path.exists()
        ):
            return None  # read-only: the index says so, and mends a sidecar's mode
        ensure_private_dir(where)
        ensure_private_file(database)
    except OSError:
        return None
    return database, where


class ReadingIndex:
    """HistoryIndex's `search` and `count` through the driver where the file allows; the rest
    of HistoryIndex (`turn`, `about`, ...) from the home's index, opened at first need."""

    def __init__(
        self, home: str | os.PathLike[str] | None = None, database_url: str | None = None
    ) -> None:
        self._home, self._url = home, database_url
        self._whole: HistoryIndex | None = None
        self._direct: DirectSearch | None = None
        found = direct_database(home, database_url)
        if found is not None:
            from history.store.sqlite.direct_search import DirectSearch

            key_file = id_key_path(found[0])
            self._direct = DirectSearch(found[0], lambda raw: _masked_project(key_file, raw))
        # As HistoryIndex: search by meaning where the extra is installed (and RECALL_MEANING
        # is not 0), or where the caller says so.
        self.meaning_search = meaning_by_default()
        self.meaning_once = False  # HistoryIndex.meaning_once

    @property
    def direct(self) -> bool:
        """Whether the home's file may be searched through the driver (when it is current)."""
        return self._direct is not None

    def whole(self) -> HistoryIndex:
        """The home's HistoryIndex."""
        if self._whole is None or self._whole.closed:
            from history.index import history_for

            self._whole = history_for(self._home, self._url)
        self._whole.meaning_search = self.meaning_search
        self._whole.meaning_once = self.meaning_once
        return self._whole

    def search(
        self,
        query: str,
        project: str | None = None,
        days: int | None = None,
        k: int = 5,
        meaning: bool | None = None,
    ) -> SearchResults:
        """HistoryIndex.search."""
        if self._direct is None:
            return self.whole().search(query, project, days, k, meaning)
        if k < 1:
            raise ValueError("k must be at least 1")
        since = limits.since(days)
        query_terms = terms(query)
        if not query_terms:
            return SearchResults()
        blended = self.meaning_search if meaning is None else meaning

        def answer(reading: Reading) -> SearchResults | None:
            # A search by meaning is the words' alone until some turn has a vector; then it
            # goes the whole way, to the model.
            if blended and reading.vectors_stored():
                return None
            return reading.search(query_terms, project, since, k)

        found = self._direct.ask(answer)
        return self.whole().search(query, project, days, k, meaning) if found is None else found

    def count(self, project: str | None = None) -> int:
        """HistoryIndex.count."""
        found = None
        if self._direct is not None:
            found = self._direct.ask(lambda reading: reading.count(project))
        return self.whole().count(project) if found is None else found

    def close(self) -> None:
        if self._direct is not None:
            self._direct.close()
        if self._whole is not None:
            self._whole.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.whole(), name)


def _masked_project(key_file: Path, raw: str) -> str:
    """A project's key masked as the redaction masks it (history/stored_forms.py)."""
    from history.redaction.ids import IdMask

    return IdMask(key_file).project(raw)

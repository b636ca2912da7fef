"""Recording from a process that only records (`recall hook`, once per agent turn): straight
into the home's SQLite file when it is current, through the driver alone, without opening a
HistoryIndex and the SQLAlchemy it stands on; through HistoryIndex otherwise.

The turns are prepared as `HistoryIndex.record_many` prepares them (history/prepare.py: every
field redacted, ids and project masked with the file's id key) and written as its repository
writes them (history/store/sqlite/direct.py says what "current" takes, and writes). A file that
is not there yet, not writable, named by a URL, or that needs a migration, owed work or a
re-scan goes the whole way, so what the user sees of those is what HistoryIndex says.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from history.direct_read import direct_database
from history.home import id_key_path
from history.prepare import RecordCounts, TurnFields, as_turn, prepare
from history.redaction.ids import IdMask
from history.store.sqlite import direct

log = logging.getLogger(__name__)


class DirectRecorder:
    """A sink for turns (history.importers.run.TurnSink) that writes through the driver."""

    def __init__(self, database: Path, home: Path) -> None:
        self.database = database
        self._home = home
        self._ids = IdMask(id_key_path(database))

    def record_many(
        self, turns: Iterable[TurnFields], include_forgotten: bool = False
    ) -> RecordCounts:
        """As HistoryIndex.record_many; the whole path's when the file needs more than a
        write, or when `include_forgotten` asks to lift tombstones."""
        items = list(turns)
        if include_forgotten:
            return self._whole_path(items, include_forgotten)
        prepared, failed = [], 0
        for item in items:
            try:
                prepared.append(prepare(as_turn(item), self._ids))
            except Exception as exc:
                log.warning("turn %s not recorded: %s", self._shown_id(item), type(exc).__name__)
                failed += 1
        written = direct.record_many(self.database, prepared)
        if written is None:
            return self._whole_path(items, include_forgotten)
        counts = written.counts
        return RecordCounts(
            new=counts.new,
            updated=counts.updated,
            unchanged=counts.unchanged,
            forgotten=written.left_out,
            failed=failed,
        )

    def _whole_path(self, items: list[TurnFields], include_forgotten: bool) -> RecordCounts:
        from history.index import history_for

        return history_for(self._home).record_many(items, include_forgotten)

    def _shown_id(self, item: TurnFields) -> str:
        """A turn id fit for a log line: masked like the stored one."""
        try:
            return self._ids.id(str(item.turn_id))
        except Exception:
            return "(an id that could not be masked)"


def direct_recorder(
    home: str | os.PathLike[str] | None = None, database_url: str | None = None
) -> DirectRecorder | None:
    """A recorder for the home's SQLite file when it can be written directly; None when the
    caller should open the index (`history_for`) instead."""
    found = direct_database(home, database_url)
    return None if found is None else DirectRecorder(*found)

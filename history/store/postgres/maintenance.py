"""The maintenance port on PostgreSQL: a forget's owed scrub (scrub.py), GIN's pending list and
fresh statistics as steps of the upkeep (upkeep.py), what the database holds and weighs, and
doctor (doctor.py). A server's database leaves no damaged copies in the home."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace

from sqlalchemy import Connection, Engine
from sqlalchemy.dialects.postgresql import insert

from history.i18n import Messages
from history.reports import About, DoctorReport, Stats
from history.store import stats
from history.store.maintenance import ENGLISH, Maintenance
from history.store.owed import ScrubState
from history.store.postgres import doctor, upkeep, waiting
from history.store.postgres.scrub import Scrub
from history.store.rescan import Rescan, Step

_SIZE = "SELECT pg_total_relation_size('turns') + pg_total_relation_size('forgotten_sessions')"


class PostgresMaintenance(Maintenance):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._scrub = Scrub(engine)
        self._rescan = Rescan(engine, engine, insert, self._masking)

    def about(self) -> About:
        where = self.engine.url.render_as_string(hide_password=True)
        return About(where, doctor.TSVECTOR_SEARCH, full_text=True)

    def owes(self) -> bool:
        return self._scrub.pending()

    def scrub(self, seconds: float | None, short_steps: bool = False) -> ScrubState:
        """The rewrite is one statement: done, or held back by a reader."""
        return "done" if self._scrub.run() else "blocked"

    def step(self, pages: int, writes: AbstractContextManager[object]) -> ScrubState:
        """A step of a re-scan under new secret rules, else the owed scrub, else merge GIN's
        pending list into the index (what a search would otherwise scan), else refresh the
        statistics (PostgreSQL checkpoints by itself)."""
        if self._rescan.due():  # before the scrub: paid once at its end, not after each step
            self._rescan.paced_step(writes)
            return "more"
        if self._scrub.pending() and not self._scrub.run():
            return "blocked"
        if waiting.move(self.engine):  # live turns that met a partition being rewritten
            return "more"
        with writes:
            if upkeep.merge_pending(self.engine):
                return "more"
        upkeep.analyze_if_stale(self.engine)
        return "done"

    @contextmanager
    def _masking(self, conn: Connection, turns: int) -> Iterator[None]:
        """A turn masked anew leaves its old row dead: the rewrite a forget owes."""
        yield
        self._scrub.owed(conn, every_partition=True)

    def rescan_due(self) -> bool:
        return self._rescan.due()

    def rescan_pending(self) -> bool:
        return self._rescan.pending()

    def rescan_step(self, writes: AbstractContextManager[object]) -> Step:
        return self._rescan.step(writes)

    def rescan_left(self) -> int:
        return self._rescan.left()

    def stats(self, said: Messages = ENGLISH) -> Stats:
        with self.engine.connect() as conn:
            size = int(conn.exec_driver_sql(_SIZE).scalar_one())
        return replace(stats.counts(self.engine), database_bytes=size)

    def doctor(self, repair: bool, writable: bool, said: Messages = ENGLISH) -> DoctorReport:
        return doctor.examine(self.engine, repair=repair, said=said)

    def compact(self, said: Messages = ENGLISH) -> str:
        while upkeep.merge_pending(self.engine):
            pass
        upkeep.analyze_if_stale(self.engine)
        return said(doctor.MERGED)

    def close(self) -> None:
        self.engine.dispose()

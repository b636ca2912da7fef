"""What `recall stats` reports: turns per project, sessions, time span, size, search path."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, func, select

from history.domain import NewTurn
from history.retention import RetentionPolicy
from history.store import retention as stored_retention
from history.store.models import Turn
from history.store.sqlite.forgetting.spool import Spool, spool_file


@dataclass(frozen=True)
class Stats:
    turns: int
    sessions: int
    oldest: datetime | None
    newest: datetime | None
    per_project: dict[str, int] = field(default_factory=dict)
    database_bytes: int = 0
    # Live turns a forget made wait beside the file (SQLite's spool), not yet in the counts.
    spooled: int = 0
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)


def collect(engine: Engine, database: Path | None) -> Stats:
    """What search can find: turns past their retention, or of a conversation a forget still
    deletes, are in none of the counts."""
    with engine.connect() as conn:
        policy = stored_retention.load(conn)
        shown = stored_retention.shown_conditions(conn)
        turns, sessions, oldest, newest = conn.execute(
            select(
                func.count(),
                func.count(Turn.session_id.distinct()),
                func.min(Turn.asked_at),
                func.max(Turn.asked_at),
            ).where(*shown)
        ).one()
        per_project = conn.execute(
            select(Turn.project, func.count())
            .where(*shown)
            .group_by(Turn.project)
            .order_by(func.count().desc())
        ).all()
    size, spooled = 0, 0
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            size = int(
                conn.exec_driver_sql(
                    "SELECT pg_total_relation_size('turns')"
                    " + pg_total_relation_size('forgotten_sessions')"
                ).scalar_one()
            )
    elif database is not None:
        spool = Spool(database, _unused_writer)
        try:
            spooled = spool.count()
        finally:
            spool.close()
        files = [database, *(Path(f"{database}{end}") for end in ("-wal", "-shm"))]
        files += [
            spool_file(database),
            *(Path(f"{spool_file(database)}{end}") for end in ("-wal", "-shm")),
        ]
        size = sum(path.stat().st_size for path in files if path.exists())
    return Stats(
        turns=turns,
        sessions=sessions,
        oldest=oldest,
        newest=newest,
        per_project={project: count for project, count in per_project},
        database_bytes=size,
        spooled=spooled,
        retention=policy,
    )


def _unused_writer(conn: Connection, turns: list[NewTurn]) -> None:
    raise AssertionError("stats only counts the spool")

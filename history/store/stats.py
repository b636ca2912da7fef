"""What `recall stats` reports: turns per project, sessions, time span, size, search path."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine, func, select

from history.store.models import Turn


@dataclass(frozen=True)
class Stats:
    turns: int
    sessions: int
    oldest: datetime | None
    newest: datetime | None
    per_project: dict[str, int] = field(default_factory=dict)
    database_bytes: int = 0


def collect(engine: Engine, database: Path | None) -> Stats:
    with engine.connect() as conn:
        turns, sessions, oldest, newest = conn.execute(
            select(
                func.count(),
                func.count(Turn.session_id.distinct()),
                func.min(Turn.asked_at),
                func.max(Turn.asked_at),
            )
        ).one()
        per_project = conn.execute(
            select(Turn.project, func.count()).group_by(Turn.project).order_by(func.count().desc())
        ).all()
    size = 0
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            size = int(
                conn.exec_driver_sql(
                    "SELECT pg_total_relation_size('turns')"
                    " + pg_total_relation_size('forgotten_sessions')"
                ).scalar_one()
            )
    elif database is not None:
        size = sum(
            path.stat().st_size
            for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm"))
            if path.exists()
        )
    return Stats(
        turns=turns,
        sessions=sessions,
        oldest=oldest,
        newest=newest,
        per_project={project: count for project, count in per_project},
        database_bytes=size,
    )

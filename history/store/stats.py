"""What `recall stats` counts, on either SQL backend: turns per project, conversations, the
time span, the retention settings, the turns left to re-scan under new secret rules. Each
backend's maintenance adds its storage's size."""

from __future__ import annotations

from sqlalchemy import Engine, func, select

from history.reports import Stats
from history.store import rescan
from history.store import retention as stored_retention
from history.store.models import Turn


def counts(engine: Engine) -> Stats:
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
        rescan_left = rescan.left(conn)
    return Stats(
        turns=turns,
        sessions=sessions,
        oldest=oldest,
        newest=newest,
        per_project={project: count for project, count in per_project},
        retention=policy,
        rescan_left=rescan_left,
    )

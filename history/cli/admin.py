"""`recall stats`, `recall migrate` and `recall doctor`: what the index holds, and its care."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from history.cli.common import NOTHING, OK, Commands, open_index
from history.domain import READ_ONLY
from history.home import resolve_home
from history.index import HistoryIndex
from history.store import migrations
from history.store.backends import configured_url
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts


def cmd_stats(args: argparse.Namespace) -> int:
    from history.store.stats import collect

    index = open_index(args)
    assert index.engine is not None
    stats = collect(index.engine, resolve_home(args.home) / "history.db")
    where = _where(args, index)
    if args.json:
        print(
            json.dumps(
                {
                    **asdict(stats),
                    "oldest": _iso(stats.oldest),
                    "newest": _iso(stats.newest),
                    "full_text": index.full_text,
                }
            )
        )
        return OK
    print(f"turns:     {stats.turns} in {stats.sessions} conversations")
    if stats.oldest and stats.newest:
        print(
            f"span:      {stats.oldest.astimezone():%Y-%m-%d %H:%M} .. "
            f"{stats.newest.astimezone():%Y-%m-%d %H:%M}"
        )
    print(f"database:  {where} ({stats.database_bytes:,} bytes)")
    print(f"search:    {_search_kind(index)}")
    for project, turns in stats.per_project.items():
        print(f"  {turns:>8}  {project}")
    return OK


def _where(args: argparse.Namespace, index: HistoryIndex) -> str:
    if index.backend == "postgresql":
        assert index.engine is not None
        return index.engine.url.render_as_string(hide_password=True)
    return str(resolve_home(args.home) / "history.db")


def _search_kind(index: HistoryIndex) -> str:
    if index.backend == "postgresql":
        return "PostgreSQL tsvector full text"
    return "FTS5 full text" if index.full_text else "LIKE (no FTS5 in this SQLite)"


def _iso(value: object) -> str | None:
    return None if value is None else value.isoformat()  # type: ignore[attr-defined]


def cmd_migrate(args: argparse.Namespace) -> int:
    from alembic import command

    if args.sql:
        config = migrations.alembic_config()
        url = configured_url(args.database_url) or sqlite_db.database_url(
            resolve_home(args.home) / "history.db"
        )
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
        command.upgrade(config, "head", sql=True)
        return OK
    index = open_index(args)  # opening runs `upgrade head`
    print(f"{_where(args, index)} is at the latest schema ({_search_kind(index)})")
    return OK


def cmd_doctor(args: argparse.Namespace) -> int:
    index = open_index(args)
    assert index.engine is not None
    if not index.writable and not args.check_only:
        print(f"Only checking, not repairing: {READ_ONLY}.")
        args.check_only = True
    if index.backend == "postgresql":
        from history.store.postgres import doctor as pg_doctor

        report = pg_doctor.examine(index.engine, repair=not args.check_only)
    else:
        from history.store.sqlite.doctor import examine

        report = examine(
            index.engine, index.full_text, repair=not args.check_only, writable=index.writable
        )
    for finding in report.findings:
        print(finding)
    if report.healthy and index.full_text and not args.check_only:
        print(_merged(index))
    return OK if report.healthy else NOTHING


def _merged(index: HistoryIndex) -> str:
    """Do the index upkeep now (a process that only ever ran briefly may have left it)."""
    assert index.engine is not None
    if index.backend == "postgresql":
        index.tidy()
        return "Merged the full-text index's pending entries (GIN's pending list)."
    with index.engine.connect() as conn:
        before = fts.segment_count(conn)
    index.tidy()
    with index.engine.connect() as conn:
        after = fts.segment_count(conn)
    if after < before:
        return f"Merged the full-text index from {before} segments into {after}."
    return f"The full-text index is in {after} segments: nothing to merge."


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    stats = commands.add_parser("stats", parents=[common], help="what the index holds")
    stats.add_argument("--json", action="store_true", help="print as JSON")
    stats.set_defaults(run=cmd_stats)

    migrate = commands.add_parser("migrate", parents=[common], help="upgrade the schema to head")
    migrate.add_argument("--sql", action="store_true", help="print the SQL instead of running it")
    migrate.set_defaults(run=cmd_migrate)

    doctor = commands.add_parser(
        "doctor", parents=[common], help="check the index and repair the full-text part"
    )
    doctor.add_argument("--check-only", action="store_true", help="report; do not rebuild")
    doctor.set_defaults(run=cmd_doctor)

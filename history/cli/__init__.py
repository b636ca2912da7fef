"""`recall`: search, forget, inspect and serve the history index from a terminal.

Exit codes: 0 found / done, 1 nothing found, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import partial

from history.cli import imports as cli_import
from history.home import resolve_home
from history.index import HistoryIndex, history_for
from history.projects import project_key
from history.store import migrations
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts
from history.tools.recall_history import MAX_K, RecallHistoryTool

OK, NOTHING, USAGE = 0, 1, 2


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number")
    return value


def _k(text: str) -> int:
    value = _positive(text)
    if value > MAX_K:
        raise argparse.ArgumentTypeError(f"k is at most {MAX_K}")
    return value


def _index(args: argparse.Namespace) -> HistoryIndex:
    return history_for(args.home)


def cmd_search(args: argparse.Namespace) -> int:
    index = _index(args)
    project = os.getcwd() if args.project is None else args.project
    scope = None if args.everywhere else project
    if args.json:
        hits = index.search(args.query, project=scope, days=args.days, k=args.k)
        rows = [{**asdict(hit), "asked_at": hit.asked_at.isoformat()} for hit in hits]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return OK if hits else NOTHING
    tool = RecallHistoryTool(index, project)
    answer = tool.run(args.query, days=args.days, k=args.k, everywhere=args.everywhere)
    if answer.startswith("error: "):
        print(answer, file=sys.stderr)
        return USAGE
    print(answer)
    return OK if index.search(args.query, project=scope, days=args.days, k=1) else NOTHING


def cmd_forget(args: argparse.Namespace) -> int:
    index = _index(args)
    forget: Callable[[], int]
    if args.session is not None:
        target = f"conversation {args.session}"
        forget = partial(index.forget_session, args.session)
    else:
        key = project_key(args.project)
        sessions, turns = len(index.session_ids(key)), index.count(key)
        target = f"every conversation of {key} ({sessions} conversations, {turns} turns)"
        forget = partial(index.forget_project, key)
    if not args.yes:
        if not sys.stdin.isatty():
            print("recall forget: pass --yes to forget without a terminal to ask", file=sys.stderr)
            return USAGE
        if input(f"Forget {target}? This cannot be undone. [y/N] ").strip().lower() != "y":
            print("nothing forgotten", file=sys.stderr)
            return NOTHING
    forgotten = forget()  # even at 0 it leaves a tombstone: an import will not bring it back
    if not forgotten:
        print(f"nothing was recorded for {target}", file=sys.stderr)
        return NOTHING
    print(f"forgot {forgotten} turns: {target}")
    return OK


def cmd_stats(args: argparse.Namespace) -> int:
    from history.store.stats import collect

    index = _index(args)
    assert index.engine is not None
    stats = collect(index.engine, resolve_home(args.home) / "history.db")
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
    print(f"database:  {resolve_home(args.home) / 'history.db'} ({stats.database_bytes:,} bytes)")
    print(f"search:    {'FTS5 full text' if index.full_text else 'LIKE (no FTS5 in this SQLite)'}")
    for project, turns in stats.per_project.items():
        print(f"  {turns:>8}  {project}")
    return OK


def _iso(value: object) -> str | None:
    return None if value is None else value.isoformat()  # type: ignore[attr-defined]


def cmd_migrate(args: argparse.Namespace) -> int:
    from alembic import command

    if args.sql:
        config = migrations.alembic_config()
        config.set_main_option(
            "sqlalchemy.url", sqlite_db.database_url(resolve_home(args.home) / "history.db")
        )
        command.upgrade(config, "head", sql=True)
        return OK
    index = _index(args)  # opening runs `upgrade head`
    print(
        f"{resolve_home(args.home) / 'history.db'} is at the latest schema "
        f"({'FTS5' if index.full_text else 'LIKE fallback'})"
    )
    return OK


def cmd_serve(args: argparse.Namespace) -> int:
    from history.api.serve import serve

    try:
        serve(args.home, host=args.host, port=args.port)
    except ValueError as refused:
        print(f"recall serve: {refused}", file=sys.stderr)
        return USAGE
    return OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from history.mcp_server import main

    main(args.project, args.home)
    return OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from history.store.sqlite.doctor import examine

    index = _index(args)
    assert index.engine is not None
    report = examine(index.engine, index.full_text, repair=not args.check_only)
    for finding in report.findings:
        print(finding)
    if report.healthy and index.full_text and not args.check_only:
        print(_merged(index))
    return OK if report.healthy else NOTHING


def _merged(index: HistoryIndex) -> str:
    """Do the index upkeep now (a process that only ever ran briefly may have left it)."""
    assert index.engine is not None
    with index.engine.connect() as conn:
        before = fts.segment_count(conn)
    index.tidy()
    with index.engine.connect() as conn:
        after = fts.segment_count(conn)
    if after < before:
        return f"Merged the full-text index from {before} segments into {after}."
    return f"The full-text index is in {after} segments: nothing to merge."


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home",
        default=argparse.SUPPRESS,
        help="index home holding history.db (default: $RECALL_HOME, else ~/.recall)",
    )
    parser = argparse.ArgumentParser(
        prog="recall",
        parents=[common],
        description="Search, forget and serve the long-term history of a coding agent's turns.",
        epilog="Exit codes: 0 found or done, 1 nothing found, 2 usage error.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    search = commands.add_parser("search", parents=[common], help="find earlier turns")
    search.add_argument("query", help="words to look for, e.g. 'login function'")
    where = search.add_mutually_exclusive_group()
    where.add_argument("--project", help="workspace path (default: the current directory)")
    where.add_argument("--everywhere", action="store_true", help="search every project")
    search.add_argument("--days", type=_positive, help="only turns of the last N days")
    search.add_argument("-k", type=_k, default=5, help=f"how many turns, 1..{MAX_K} (default 5)")
    search.add_argument("--json", action="store_true", help="print hits as JSON")
    search.set_defaults(run=cmd_search)

    forget = commands.add_parser(
        "forget", parents=[common], help="forget a conversation or project"
    )
    what = forget.add_mutually_exclusive_group(required=True)
    what.add_argument("--session", help="conversation (session) id")
    what.add_argument("--project", help="workspace path: every conversation of it")
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    forget.set_defaults(run=cmd_forget)

    stats = commands.add_parser("stats", parents=[common], help="what the index holds")
    stats.add_argument("--json", action="store_true", help="print as JSON")
    stats.set_defaults(run=cmd_stats)

    migrate = commands.add_parser("migrate", parents=[common], help="upgrade the schema to head")
    migrate.add_argument("--sql", action="store_true", help="print the SQL instead of running it")
    migrate.set_defaults(run=cmd_migrate)

    serve = commands.add_parser("serve", parents=[common], help="serve the HTTP API")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address (default 127.0.0.1; any other needs RECALL_TOKEN)",
    )
    serve.add_argument("--port", type=_positive, default=8765, help="port (default 8765)")
    serve.set_defaults(run=cmd_serve)

    mcp = commands.add_parser("mcp", parents=[common], help="serve recall_history over MCP stdio")
    mcp.add_argument("--project", help="workspace path (default: the current directory)")
    mcp.set_defaults(run=cmd_mcp)

    doctor = commands.add_parser(
        "doctor", parents=[common], help="check the index and repair the full-text part"
    )
    doctor.add_argument("--check-only", action="store_true", help="report; do not rebuild")
    doctor.set_defaults(run=cmd_doctor)

    cli_import.register(commands, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not hasattr(args, "home"):
        args.home = None
    try:
        code: int = args.run(args)
    except BrokenPipeError:
        # `recall stats | head` closed the pipe: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK
    return code

"""`recall show`, `recall sessions`, `recall projects`: what the index holds, opened and listed.

`show` prints a turn, or a conversation, in full (through a pager on a terminal); the lists
print a line or two per conversation or project. Each takes `--json`.
"""

from __future__ import annotations

import argparse
import json
import os
import pydoc
import shlex
import sys
from dataclasses import asdict
from datetime import datetime
from typing import Any

from history.cli.common import NOTHING, OK, USAGE, Commands, open_index, positive
from history.domain import ConversationSummary, ProjectSummary, Turn
from history.projects import project_key
from history.tools.text import file_line
from history.tools.turn_text import conversation_text, turn_block

SESSIONS_SHOWN = 20


def _json(rows: Any) -> None:
    print(json.dumps(rows, ensure_ascii=False, indent=2, default=_iso))


def _iso(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(type(value).__name__)


def _local(when: datetime) -> str:
    return f"{when.astimezone():%Y-%m-%d %H:%M}"


def _page(text: str) -> None:
    """Through the user's pager ($PAGER, else less) when a person reads a terminal."""
    if sys.stdout.isatty():
        pydoc.pager(text)
    else:
        print(text)


def cmd_show(args: argparse.Namespace) -> int:
    if (args.turn_id is None) == (args.session is None):
        print("recall show: give a TURN_ID or --session ID (not both)", file=sys.stderr)
        return USAGE
    if args.around is not None and args.session is None:
        print("recall show: --around goes with --session", file=sys.stderr)
        return USAGE
    index = open_index(args)
    if args.turn_id is not None:
        turn = index.turn(args.turn_id)
        turns = [] if turn is None else [turn]
        missing = f"no turn has the id {args.turn_id!r} (it may have been forgotten)"
    else:
        turns = index.conversation(args.session, args.around, args.radius)
        missing = f"no conversation has the id {args.session!r} (it may have been forgotten)"
        if args.around is not None and not turns and index.conversation(args.session, None, 0):
            missing = f"conversation {args.session!r} holds no turn {args.around!r}"
    if not turns:
        print(f"recall show: {missing}", file=sys.stderr)
        return NOTHING
    if args.json:
        _json([asdict(turn) for turn in turns] if args.session else asdict(turns[0]))
        return OK
    _page(_shown(turns, args))
    return OK


def _shown(turns: list[Turn], args: argparse.Namespace) -> str:
    now, here = datetime.now().astimezone(), project_key(os.getcwd())
    if args.turn_id is not None:
        return turn_block(turns[0], now, here)
    return conversation_text(turns, now, here, args.around)


def cmd_sessions(args: argparse.Namespace) -> int:
    index = open_index(args)
    project = None if args.everywhere else (args.project or os.getcwd())
    try:
        found = index.conversations(project, args.days, args.n + 1, args.before)
    except ValueError as bad:
        print(f"recall sessions: {bad}", file=sys.stderr)
        return USAGE
    page, more = found[: args.n], len(found) > args.n
    if args.json:
        _json([{**asdict(summary), "cursor": summary.cursor} for summary in page])
        return OK if page else NOTHING
    where = "any project" if project is None else f"this project ({project_key(project)})"
    window = f" in the last {args.days} days" if args.days else ""
    if not page:
        print(f"No conversation in {where}{window}" + (" after that one." if args.before else "."))
        return NOTHING
    lines = [f"Conversations in {where}{window}, the latest first:"]
    for summary in page:
        lines += _summary_lines(summary, named=project is None)
    if more:
        lines.append(f"More: {_next_page(args, page[-1].cursor)}")
    print("\n".join(lines))
    return OK


def _next_page(args: argparse.Namespace, cursor: str) -> str:
    """The command that lists the next page of the same list."""
    words = ["recall", "sessions"]
    if args.everywhere:
        words.append("--everywhere")
    elif args.project:
        words += ["--project", args.project]
    if args.days:
        words += ["--days", str(args.days)]
    if args.n != SESSIONS_SHOWN:
        words += ["-n", str(args.n)]
    return shlex.join([*words, "--before", cursor])


def _summary_lines(summary: ConversationSummary, named: bool) -> list[str]:
    turns = f"{summary.turns} turn" + ("" if summary.turns == 1 else "s")
    if summary.tainted_turns:
        turns += f", {summary.tainted_turns} tainted"
    lines = [f"{_local(summary.last_asked_at)}  {summary.session_id}  ({turns})"]
    lines.append(f"    {summary.first_asked}")
    if named:
        lines.append(f"    project: {summary.project}")
    if summary.edited:
        lines.append("    " + file_line("edited", summary.edited, 96))
    return lines


NO_PROJECTS = "No project holds a turn: none was recorded, or all were forgotten."


def cmd_projects(args: argparse.Namespace) -> int:
    found = open_index(args).projects()
    if args.json:
        _json([asdict(summary) for summary in found])
    else:
        print(_projects_table(found) if found else NO_PROJECTS)
    return OK if found else NOTHING


def _projects_table(found: list[ProjectSummary]) -> str:
    lines = [f"{'turns':>9}  {'conversations':>13}  {'latest turn':<16}  project"]
    for p in found:
        lines.append(
            f"{p.turns:>9,}  {p.conversations:>13,}  {_local(p.last_asked_at):<16}  {p.project}"
        )
    return "\n".join(lines)


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    show = commands.add_parser("show", parents=[common], help="a turn, or a conversation, in full")
    show.add_argument("turn_id", nargs="?", metavar="TURN_ID", help="a turn id, e.g. from search")
    show.add_argument("--session", metavar="ID", help="a conversation: all its turns, in order")
    show.add_argument("--around", metavar="TURN_ID", help="with --session: the turns near this one")
    show.add_argument(
        "--radius", type=positive, default=2, help="with --around: turns either side (default 2)"
    )
    show.add_argument("--json", action="store_true", help="print the turns as JSON")
    show.set_defaults(run=cmd_show)

    sessions = commands.add_parser(
        "sessions", parents=[common], help="list conversations, the latest first"
    )
    where = sessions.add_mutually_exclusive_group()
    where.add_argument("--project", help="workspace path (default: the current directory)")
    where.add_argument("--everywhere", action="store_true", help="every project")
    sessions.add_argument("--days", type=positive, help="with a turn in the last N days")
    sessions.add_argument(
        "-n", type=positive, default=SESSIONS_SHOWN, help=f"how many (default {SESSIONS_SHOWN})"
    )
    sessions.add_argument("--before", metavar="CURSOR", help="the next page, as `More:` says")
    sessions.add_argument("--json", action="store_true", help="print the list as JSON")
    sessions.set_defaults(run=cmd_sessions)

    projects = commands.add_parser(
        "projects", parents=[common], help="list projects: turns, conversations, latest turn"
    )
    projects.add_argument("--json", action="store_true", help="print the list as JSON")
    projects.set_defaults(run=cmd_projects)

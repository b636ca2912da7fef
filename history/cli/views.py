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
from history.cli.language import _, columns, ngettext, number, speaking
from history.domain import ConversationSummary, ProjectSummary, Turn
from history.i18n import N_, Messages
from history.index import AmbiguousTurnId
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


def _tool_words() -> Messages:
    """What recall_turn says of a turn (its labels, dates, "+N more"), in the CLI's language."""
    return Messages("tool", speaking())


def _page(text: str) -> None:
    """Through the user's pager ($PAGER, else less) when a person reads a terminal."""
    if sys.stdout.isatty():
        pydoc.pager(text)
    else:
        print(text)


def cmd_show(args: argparse.Namespace) -> int:
    if (args.turn_id is None) == (args.session is None):
        print(_("recall show: give a TURN_ID or --session ID (not both)"), file=sys.stderr)
        return USAGE
    if args.around is not None and args.session is None:
        print(_("recall show: --around goes with --session"), file=sys.stderr)
        return USAGE
    index = open_index(args)
    if args.turn_id is not None:
        try:
            turn = index.turn(args.turn_id.strip(), prefix=True)
        except AmbiguousTurnId as several:
            print(_ambiguous(several), file=sys.stderr)
            return USAGE
        turns = [] if turn is None else [turn]
        missing = _("no turn has the id {id!r} (it may have been forgotten)", id=args.turn_id)
    else:
        turns = index.conversation(args.session, args.around, args.radius)
        missing = _(
            "no conversation has the id {id!r} (it may have been forgotten)", id=args.session
        )
        if args.around is not None and not turns and index.conversation(args.session, None, 0):
            missing = _(
                "conversation {id!r} holds no turn {turn!r}", id=args.session, turn=args.around
            )
    if not turns:
        print(_("recall show: {problem}", problem=missing), file=sys.stderr)
        return NOTHING
    if args.json:
        _json([asdict(turn) for turn in turns] if args.session else asdict(turns[0]))
        return OK
    _page(_shown(turns, args))
    return OK


def _ambiguous(several: AmbiguousTurnId) -> str:
    """A sentence naming how many turn ids the prefix starts, then the first of them."""
    if several.counted:
        head = ngettext(
            "recall show: {prefix!r} starts {count} turn id; give more of the one you mean:",
            "recall show: {prefix!r} starts {count} turn ids; give more of the one you mean:",
            several.count,
            prefix=several.prefix,
            count=number(several.count),
        )
    else:
        head = _(
            "recall show: {prefix!r} starts more than {count} turn ids; give more of the one "
            "you mean. The first {shown}:",
            prefix=several.prefix,
            count=number(several.count - 1),
            shown=len(several.candidates),
        )
    more = several.count - len(several.candidates)
    lines = [head, *(f"  {turn_id}" for turn_id in several.candidates)]
    if more > 0 and several.counted:
        lines.append("  " + _tool_words()("+{count} more", count=number(more)))
    return "\n".join(lines)


def _shown(turns: list[Turn], args: argparse.Namespace) -> str:
    now, here = datetime.now().astimezone(), project_key(os.getcwd())
    if args.turn_id is not None:
        return turn_block(turns[0], now, here, _=_tool_words())
    return conversation_text(turns, now, here, args.around, _=_tool_words())


def cmd_sessions(args: argparse.Namespace) -> int:
    index = open_index(args)
    project = None if args.everywhere else (args.project or os.getcwd())
    try:
        found = index.conversations(project, args.days, args.n + 1, args.before)
    except ValueError as bad:
        # The library's own words (a bad cursor is paging.BAD_CURSOR), in the catalogue.
        print(_("recall sessions: {problem}", problem=_(str(bad))), file=sys.stderr)
        return USAGE
    page, more = found[: args.n], len(found) > args.n
    if args.json:
        _json([{**asdict(summary), "cursor": summary.cursor} for summary in page])
        return OK if page else NOTHING
    if not page:
        print(_nothing_listed(project, args.days, bool(args.before)))
        return NOTHING
    lines = [_listed(project, args.days)]
    for summary in page:
        lines += _summary_lines(summary, named=project is None)
    if more:
        lines.append(_("More: {command}", command=_next_page(args, page[-1].cursor)))
    print("\n".join(lines))
    return OK


def _listed(project: str | None, days: int | None) -> str:
    if project is None:
        if days:
            return _(
                "Conversations in any project in the last {days} days, the latest first:", days=days
            )
        return _("Conversations in any project, the latest first:")
    key = project_key(project)
    if days:
        return _(
            "Conversations in this project ({project}) in the last {days} days, the latest first:",
            project=key,
            days=days,
        )
    return _("Conversations in this project ({project}), the latest first:", project=key)


def _nothing_listed(project: str | None, days: int | None, after: bool) -> str:
    fields = {"project": None if project is None else project_key(project), "days": days}
    if after:
        return _("No conversation after that one.")
    if project is None:
        if days:
            return _("No conversation in any project in the last {days} days.", **fields)
        return _("No conversation in any project.")
    if days:
        return _(
            "No conversation in this project ({project}) in the last {days} days; "
            "--everywhere lists those of every project.",
            **fields,
        )
    return _(
        "No conversation in this project ({project}); --everywhere lists those of every project.",
        **fields,
    )


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
    turns = ngettext("{count} turn", "{count} turns", summary.turns, count=number(summary.turns))
    if summary.tainted_turns:
        turns += ", " + ngettext(
            "{count} tainted",
            "{count} tainted",
            summary.tainted_turns,
            count=number(summary.tainted_turns),
        )
    lines = [f"{_local(summary.last_asked_at)}  {summary.session_id}  ({turns})"]
    lines.append(f"    {summary.first_asked}")
    if named:
        lines.append("    " + _("project: {project}", project=summary.project))
    if summary.edited:
        lines.append("    " + file_line(_("edited"), summary.edited, 96, _tool_words()))
    return lines


NO_PROJECTS = N_("No project holds a turn: none was recorded, or all were forgotten.")


def cmd_projects(args: argparse.Namespace) -> int:
    found = open_index(args).projects()
    if args.json:
        _json([asdict(summary) for summary in found])
    else:
        print(_projects_table(found) if found else _(NO_PROJECTS))
    return OK if found else NOTHING


def _projects_table(found: list[ProjectSummary]) -> str:
    head = (_("turns"), _("conversations"), _("latest turn"), _("project"))
    rows = [
        (number(p.turns), number(p.conversations), _local(p.last_asked_at), p.project)
        for p in found
    ]
    width = [max(columns(row[i]) for row in [head, *rows]) for i in range(3)]
    return "\n".join(
        f"{_pad(turns, width[0], right=True)}  {_pad(conversations, width[1], right=True)}  "
        f"{_pad(latest, width[2])}  {project}"
        for turns, conversations, latest, project in [head, *rows]
    )


def _pad(text: str, width: int, right: bool = False) -> str:
    room = " " * (width - columns(text))
    return room + text if right else text + room


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    show = commands.add_parser(
        "show", parents=[common], help=_("a turn, or a conversation, in full")
    )
    show.add_argument(
        "turn_id", nargs="?", metavar="TURN_ID", help=_("a turn id, e.g. from search")
    )
    show.add_argument("--session", metavar="ID", help=_("a conversation: all its turns, in order"))
    show.add_argument(
        "--around", metavar="TURN_ID", help=_("with --session: the turns near this one")
    )
    show.add_argument(
        "--radius", type=positive, default=2, help=_("with --around: turns either side (default 2)")
    )
    show.add_argument("--json", action="store_true", help=_("print the turns as JSON"))
    show.set_defaults(run=cmd_show)

    sessions = commands.add_parser(
        "sessions", parents=[common], help=_("list conversations, the latest first")
    )
    where = sessions.add_mutually_exclusive_group()
    where.add_argument("--project", help=_("workspace path (default: the current directory)"))
    where.add_argument("--everywhere", action="store_true", help=_("every project"))
    sessions.add_argument("--days", type=positive, help=_("with a turn in the last N days"))
    sessions.add_argument(
        "-n",
        type=positive,
        default=SESSIONS_SHOWN,
        help=_("how many (default {count})", count=SESSIONS_SHOWN),
    )
    sessions.add_argument("--before", metavar="CURSOR", help=_("the next page, as `More:` says"))
    sessions.add_argument("--json", action="store_true", help=_("print the list as JSON"))
    sessions.set_defaults(run=cmd_sessions)

    projects = commands.add_parser(
        "projects", parents=[common], help=_("list projects: turns, conversations, latest turn")
    )
    projects.add_argument("--json", action="store_true", help=_("print the list as JSON"))
    projects.set_defaults(run=cmd_projects)

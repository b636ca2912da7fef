"""`recall blame`: the turns that edited a file, or the turn that wrote each line of it.

The answer is shown as the recall_file tool shows it to a model (history/tools/file_text.py),
in the CLI's language, with every added line a turn's work holds; `--json` gives the same as
data (what `GET /api/code/files` answers).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime

from history.cli.common import NOTHING, OK, USAGE, Commands, open_index, top_k
from history.cli.language import _, ngettext, speaking
from history.i18n import Messages
from history.limits import MAX_K

ALL_ADDED = 10_000


def cmd_blame(args: argparse.Namespace) -> int:
    from history import blame, blame_json, blame_paths
    from history.tools.file_text import lines_text, nothing_text, turns_text

    try:
        path, span = blame_paths.split_lines(args.path)
    except ValueError:
        print(
            _(
                "recall blame: {spec} names no lines (LINE or FROM-TO, counted from 1)",
                spec=args.path,
            ),
            file=sys.stderr,
        )
        return USAGE
    index = open_index(args)
    target = blame.find(index, path, os.getcwd(), follow=args.follow)
    turns = blame.file_turns(index, target, read=args.read and span is None)
    words = Messages("tool", speaking())
    now = datetime.now().astimezone()
    if span is None:
        shown = turns[: args.k]
        if args.json:
            print(json.dumps(blame_json.turns(target, shown), ensure_ascii=False, indent=2))
        elif shown:
            print(turns_text(target, shown, now, args.read, ALL_ADDED, words))
        else:
            print(nothing_text(target, args.read, words), file=sys.stderr)
        return OK if shown else NOTHING
    try:
        lines = blame.current_lines(target, *span)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        print(
            _("recall blame: {path} cannot be read ({reason})", path=path, reason=reason),
            file=sys.stderr,
        )
        return USAGE
    except blame.PastTheEnd as short:
        print(
            ngettext(
                "recall blame: {path} has {count} line",
                "recall blame: {path} has {count} lines",
                short.lines,
                path=path,
                count=short.lines,
            ),
            file=sys.stderr,
        )
        return USAGE
    origins = blame.line_origins(target, turns, lines, span[0], follow=args.follow)
    if args.json:
        print(json.dumps(blame_json.lines(target, origins), ensure_ascii=False, indent=2))
    else:
        print(lines_text(target, origins, now, words))
    return OK if any(origin.origin for origin in origins) else NOTHING


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    blame = commands.add_parser(
        "blame", parents=[common], help=_("the turns that edited a file, or wrote a line of it")
    )
    blame.add_argument("path", metavar="PATH", help=_("a file, FILE:LINE or FILE:FROM-TO"))
    blame.add_argument(
        "--read", action="store_true", help=_("also the turns that only read the file")
    )
    blame.add_argument(
        "--follow", action="store_true", help=_("also the file's names before a rename git knows")
    )
    blame.add_argument(
        "-k", type=top_k, default=5, help=_("how many turns, 1..{most} (default 5)", most=MAX_K)
    )
    blame.add_argument("--json", action="store_true", help=_("print as JSON"))
    blame.set_defaults(run=cmd_blame)

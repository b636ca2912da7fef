"""`recall forget`: a conversation or a whole project, after asking."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial

from history.cli.common import (
    FAILED,
    NOTHING,
    OK,
    USAGE,
    Commands,
    noting_damaged_copies,
    open_index,
)
from history.domain import READ_ONLY
from history.projects import project_key


def cmd_forget(args: argparse.Namespace) -> int:
    index = open_index(args)
    if not index.writable:
        print(f"recall forget: nothing forgotten: {READ_ONLY}", file=sys.stderr)
        return FAILED
    forget: Callable[[], int]
    if args.session is not None:
        target = f"conversation {args.session}"
        # Its tombstone, if any, tells "already forgotten" from "never recorded".
        already = bool(index.forgotten([args.session]))
        nothing = (
            f"{target} was already forgotten" if already else f"nothing is recorded for {target}"
        )
        forget = partial(index.forget_session, args.session)
    else:
        key = project_key(args.project)
        sessions, turns = len(index.session_ids(key)), index.count(key)
        held = f"{_n(sessions, 'conversation')}, {_n(turns, 'turn')}"
        target = f"every conversation of {key} ({held})"
        nothing = f"nothing is recorded for {key} (or it was already forgotten)"
        if not turns:
            print(nothing, file=sys.stderr)
            return NOTHING
        forget = partial(index.forget_project, key)
    if not args.yes:
        if not sys.stdin.isatty():
            print("recall forget: pass --yes to forget without a terminal to ask", file=sys.stderr)
            return USAGE
        if _ask(f"Forget {target}? This cannot be undone. [y/N] ") != "y":
            print("nothing forgotten", file=sys.stderr)
            return NOTHING
    forgotten = forget()  # even at 0 it leaves a tombstone: an import will not bring it back
    if not forgotten:
        print(nothing, file=sys.stderr)
        return NOTHING
    print(f"forgot {_n(forgotten, 'turn')}: {target}")
    return OK


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _ask(question: str) -> str:
    try:
        return input(question).strip().lower()
    except EOFError:  # Ctrl-D is a no
        print(file=sys.stderr)
        return ""
    except KeyboardInterrupt:
        print(file=sys.stderr)  # end the question's line; main says what happened
        raise


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    forget = commands.add_parser(
        "forget", parents=[common], help="forget a conversation or project"
    )
    what = forget.add_mutually_exclusive_group(required=True)
    what.add_argument("--session", help="conversation (session) id")
    what.add_argument("--project", help="workspace path: every conversation of it")
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    forget.set_defaults(run=noting_damaged_copies(cmd_forget))

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
from history.cli.language import _, ngettext, number
from history.domain import READ_ONLY
from history.projects import project_key


def cmd_forget(args: argparse.Namespace) -> int:
    index = open_index(args)
    if not index.writable:
        print(_("recall forget: nothing forgotten: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    forget: Callable[[], int]
    if args.session is not None:
        question = _("Forget conversation {id}? This cannot be undone. [y/N] ", id=args.session)
        done = _("conversation {id}", id=args.session)
        # Its tombstone, if any, tells "already forgotten" from "never recorded".
        already = bool(index.forgotten([args.session]))
        nothing = (
            _("conversation {id} was already forgotten", id=args.session)
            if already
            else _("nothing is recorded for conversation {id}", id=args.session)
        )
        forget = partial(index.forget_session, args.session)
    else:
        key = project_key(args.project)
        sessions, turns = len(index.session_ids(key)), index.count(key)
        held = _(
            "{conversations}, {turns}",
            conversations=ngettext(
                "{count} conversation", "{count} conversations", sessions, count=number(sessions)
            ),
            turns=ngettext("{count} turn", "{count} turns", turns, count=number(turns)),
        )
        question = _(
            "Forget every conversation of {project} ({held})? This cannot be undone. [y/N] ",
            project=key,
            held=held,
        )
        done = _("every conversation of {project} ({held})", project=key, held=held)
        nothing = _("nothing is recorded for {project} (or it was already forgotten)", project=key)
        if not turns:
            print(nothing, file=sys.stderr)
            return NOTHING
        forget = partial(index.forget_project, key)
    if not args.yes:
        if not sys.stdin.isatty():
            print(
                _("recall forget: pass --yes to forget without a terminal to ask"), file=sys.stderr
            )
            return USAGE
        if _ask(question) not in _yes():
            print(_("nothing forgotten"), file=sys.stderr)
            return NOTHING
    forgotten = forget()  # even at 0 it leaves a tombstone: an import will not bring it back
    if not forgotten:
        print(nothing, file=sys.stderr)
        return NOTHING
    print(
        ngettext(
            "forgot {count} turn: {what}",
            "forgot {count} turns: {what}",
            forgotten,
            count=number(forgotten),
            what=done,
        )
    )
    return OK


def _yes() -> set[str]:
    """The answers that mean yes: `y`, and the language's own (the question names it)."""
    # Translators: the one-letter answer that means yes, as the [y/N] of the question says.
    return {"y", _("y").strip().lower()}


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
        "forget", parents=[common], help=_("forget a conversation or project")
    )
    what = forget.add_mutually_exclusive_group(required=True)
    what.add_argument("--session", help=_("conversation (session) id"))
    what.add_argument("--project", help=_("workspace path: every conversation of it"))
    forget.add_argument("--yes", action="store_true", help=_("do not ask for confirmation"))
    forget.set_defaults(run=noting_damaged_copies(cmd_forget))

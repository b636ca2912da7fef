"""What every `recall` command shares: exit codes, argument types, the index it opens."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from history.cli.language import _
from history.limits import MAX_K

# The index and its storage are imported by the commands that open one, when they do: a
# command's start-up pays for what it uses (history/cli/__init__.py).
if TYPE_CHECKING:
    from history.index import HistoryIndex

OK, NOTHING, USAGE = 0, 1, 2
# An unexpected error: one line on stderr, the details in <home>/recall.log (cli/failure.py).
FAILED = 3
INTERRUPTED = 130  # Ctrl-C, as shells report it
# The sub-command registry every command module adds itself to.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{text!r} is not a whole number", text=text)) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("{value} is not a positive number", value=value))
    return value


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{text!r} is not a port number", text=text)) from None
    if not 0 <= value <= 65_535:
        raise argparse.ArgumentTypeError(_("{value} is not a TCP port (0 to 65535)", value=value))
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a number of seconds", text=text)
        ) from None
    if not 0 < value <= 3_600:
        raise argparse.ArgumentTypeError(_("{text} is not between 0 and 3600 seconds", text=text))
    return value


def top_k(text: str) -> int:
    value = positive(text)
    if value > MAX_K:
        raise argparse.ArgumentTypeError(_("k is at most {most}", most=MAX_K))
    return value


def unreachable(args: argparse.Namespace, error: Exception) -> str:
    """One sentence for a database that could not be reached or read: where, and why."""
    from history import databases

    where = databases.where(args.home, args.database_url)
    cause = str(getattr(error, "orig", None) or error).strip().splitlines()
    reason = cause[0] if cause else type(error).__name__
    return _(
        "the database at {where} could not be reached or read ({reason})",
        where=where,
        reason=reason,
    )


def open_index(args: argparse.Namespace) -> HistoryIndex:
    from history.index import history_for

    return history_for(args.home, args.database_url)


def noting_damaged_copies(
    command: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """A forget that, once it ran, names the damaged copies of the file in the home
    (history/cli/damaged.py): they may still hold what it forgot."""

    def run(args: argparse.Namespace) -> int:
        from history.cli.damaged import forget_note

        code = command(args)
        if code in (OK, NOTHING):
            note = forget_note(open_index(args).about().damaged_copies, args.session is None)
            if note:
                print(f"recall forget: {note}", file=sys.stderr)
        return code

    return run

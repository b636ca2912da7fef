"""`recall embed`: every turn waiting for its vector embedded now, newest first, with its
progress and rate (search by meaning, history/meaning/); and what `recall stats` says of it."""

from __future__ import annotations

import argparse
import sys
import time

from history.cli.common import FAILED, OK, Commands, open_index
from history.cli.language import _, ngettext, number
from history.domain import READ_ONLY

# Off a terminal, progress is said at most this often.
PROGRESS_SECONDS = 2.0


def meaning_said(waiting: int | None) -> str:
    """What `recall stats` says of search by meaning."""
    if waiting is None:
        return _("not installed (pip install 'recall-history[meaning]')")
    if not waiting:
        said = _("every turn embedded")
    else:
        said = ngettext(
            "{count} turn waits to be embedded (recall embed does it now)",
            "{count} turns wait to be embedded (recall embed does it now)",
            waiting,
            count=number(waiting),
        )
    from history.meaning_default import meaning_by_default

    if meaning_by_default():
        return said
    return _("{said}; off: searches keep to the words (RECALL_MEANING=0)", said=said)


def cmd_embed(args: argparse.Namespace) -> int:
    index = open_index(args)
    if not index.writable:
        print(_("recall embed: nothing embedded: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    meaning = index.meaning()
    if meaning is None:
        print(_("recall embed: search by meaning is {said}", said=meaning_said(None)))
        return FAILED
    started = time.monotonic()
    said = [0.0]

    def progress(done: int, left: int) -> None:
        now = time.monotonic()
        if left and now - said[0] < PROGRESS_SECONDS:
            return
        said[0] = now
        rate = format(done / max(now - started, 1e-9), ".1f")
        shown = _(
            "embedded {done}, {left} left ({rate} turns/s)",
            done=number(done),
            left=number(left),
            rate=rate,
        )
        print(shown, file=sys.stderr, flush=True)

    try:
        done = meaning.embed(progress, batch=args.batch)
    except KeyboardInterrupt:
        print(_("recall embed: stopped; the turns left wait for the next run"), file=sys.stderr)
        return FAILED
    print(ngettext("Embedded {count} turn.", "Embedded {count} turns.", done, count=number(done)))
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    embed = commands.add_parser(
        "embed", parents=[common], help=_("embed the turns waiting for search by meaning")
    )
    embed.add_argument(
        "--batch", type=int, default=16, choices=range(1, 65), metavar="N", help=_("turns a step")
    )
    embed.set_defaults(run=cmd_embed)

"""`recall push --server URL [--project P]`: the local history sent to a team's service.

What waits in the outbox goes first. Then every stored turn (of P) is redacted again and posted;
the service's turn ids make a turn it has "unchanged", and a push cut short goes on where it
stopped when run again. Progress shows on a terminal; the summary says what was sent, what the
service had already, and what failed, and names the turns hooks left aside because the service
refused them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands, open_index
from history.cli.language import _, ngettext, number
from history.cli.remote_words import (
    Teller,
    add_server_option,
    address_sentence,
    answer_words,
    service_of,
)
from history.home import ensure_private_dir, resolve_home

if TYPE_CHECKING:
    from history.remote.push import PushSummary

PROGRESS_TURNS = 200  # a push of more turns shows a progress bar on a terminal


def cmd_push(args: argparse.Namespace) -> int:
    from history.remote.client import Client
    from history.remote.push import push, pushed_ledger
    from history.remote.settings import BadAddress
    from history.remote.sink import RemoteHistory

    try:
        service = service_of(args)
    except BadAddress as bad:
        print(address_sentence("push", bad.address, bad.problem), file=sys.stderr)
        return USAGE
    if service is None:
        print(
            _("recall push: name the service: --server URL, or set RECALL_SERVER"), file=sys.stderr
        )
        return USAGE
    home = resolve_home(args.home)
    ensure_private_dir(home)
    client = Client(service)
    teller = Teller("push", service.url, home / "outbox")
    outbox = RemoteHistory(home, client, teller.tell, budget=None)
    if args.retry_refused:
        outbox.outbox.requeue_refused()
    outbox.deliver()
    index = open_index(args)
    ledger = None if args.again else pushed_ledger(home, service.url)
    with _progress(index.count(args.project)) as step:
        summary = push(index, client, outbox.ids, ledger, args.project, step)
    refused_kept = len(outbox.outbox.refused())
    if args.json:
        print(json.dumps(_as_dict(summary, service.url, refused_kept)))
    else:
        _tell(summary, service.url)
    if refused_kept:
        print(
            ngettext(
                "recall push: {count} turn the service refused is kept in {folder} "
                "(`recall push --retry-refused` sends it once more)",
                "recall push: {count} turns the service refused are kept in {folder} "
                "(`recall push --retry-refused` sends them once more)",
                refused_kept,
                count=number(refused_kept),
                folder=outbox.outbox.refused_folder,
            ),
            file=sys.stderr,
        )
    if summary.stopped is not None or summary.failed:
        return FAILED
    return OK if summary.total else NOTHING


def _tell(summary: PushSummary, url: str) -> None:
    if not summary.total:
        print(_("Nothing to push: the local history holds no turn (of that project)."))
        return
    print(
        _(
            "Pushed to {url}: {sent} sent, {unchanged} unchanged, {failed} failed.",
            url=url,
            sent=number(summary.sent),
            unchanged=number(summary.unchanged),
            failed=number(summary.failed),
        )
    )
    for turn_id, answer in summary.refusals:
        print(
            _(
                "recall push: the service refused turn {turn} ({why})",
                turn=turn_id,
                why=answer_words(answer),
            ),
            file=sys.stderr,
        )
    if summary.stopped is not None:
        print(
            ngettext(
                "recall push: the service stopped taking turns ({why}); {count} turn was not "
                "sent: `recall push` again goes on from there",
                "recall push: the service stopped taking turns ({why}); {count} turns were not "
                "sent: `recall push` again goes on from there",
                summary.left,
                why=answer_words(summary.stopped),
                count=number(summary.left),
            ),
            file=sys.stderr,
        )


def _as_dict(summary: PushSummary, url: str, refused_kept: int) -> dict[str, object]:
    stopped = summary.stopped
    return {
        "server": url,
        "turns": summary.total,
        "sent": summary.sent,
        "unchanged": summary.unchanged,
        "failed": summary.failed,
        "not_sent": summary.left,
        "stopped": None
        if stopped is None
        else {"status": stopped.status, "reason": stopped.reason},
        "refused": [
            {"turn_id": turn_id, "status": answer.status, "reason": answer.reason}
            for turn_id, answer in summary.refusals
        ],
        "refused_kept": refused_kept,
    }


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A transient progress bar on stderr, for a push of more than a few turns on a terminal."""
    if total <= PROGRESS_TURNS or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(_("push"), total=total)
        yield lambda: bar.advance(task)


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    """Add the push sub-command."""
    parser = commands.add_parser(
        "push",
        parents=[common],
        help=_("send the local history to a team's service"),
        description=_(
            "Send every turn of the local history (or of one project) to the service at "
            "--server URL (default: $RECALL_SERVER, the key in $RECALL_KEY), redacted before "
            "it leaves. Turns the service has already are left as they are; run it again after "
            "an interruption and it goes on where it stopped."
        ),
        epilog=_(
            "Exit codes: 0 done, 1 nothing to push, 2 usage error, 3 some turns were not sent."
        ),
    )
    add_server_option(parser)
    parser.add_argument("--project", metavar="P", help=_("only this project's turns"))
    parser.add_argument(
        "--again",
        action="store_true",
        help=_("post every turn, also those an earlier push sent (a service that lost them)"),
    )
    parser.add_argument(
        "--retry-refused",
        action="store_true",
        help=_("send once more the turns the service refused, kept aside by hooks"),
    )
    parser.add_argument("--json", action="store_true", help=_("print the summary as JSON"))
    parser.set_defaults(run=cmd_push)

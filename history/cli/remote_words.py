"""What `recall hook`, `recall watch` and `recall push` say about a team's service: the address
given, turns waiting in the outbox, turns the service refused. Each command's own words stay in
its module; this one holds the sentences they share, and the sink they post through.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from history.cli.language import _, ngettext, number
from history.home import ensure_private_dir, resolve_home

if TYPE_CHECKING:
    from history.remote.client import Answer
    from history.remote.settings import AddressProblem, Service
    from history.remote.sink import Note, RemoteHistory


def add_server_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        metavar="URL",
        help=_(
            "post turns to the team's service at URL instead of the local history "
            "(default: $RECALL_SERVER; the key is read from $RECALL_KEY)"
        ),
    )


def service_of(args: argparse.Namespace) -> Service | None:
    """The service named by --server or $RECALL_SERVER, None when none is. Raises BadAddress."""
    from history.remote.settings import configured_service

    return configured_service(getattr(args, "server", None), os.environ)


def address_sentence(command: str, address: str, problem: AddressProblem) -> str:
    from history.remote.settings import AddressProblem

    if problem is AddressProblem.KEY_IN_THE_CLEAR:
        why = _(
            "http:// would send the key unencrypted; use https:// (http:// is for this machine)"
        )
    elif problem is AddressProblem.CREDENTIALS:
        why = _("put the key in RECALL_KEY, not in the address")
    elif problem is AddressProblem.QUERY:
        why = _("an address of a service has no ?query or #fragment")
    else:
        why = _("give an address such as https://recall.example.com")
    return _(
        "recall {command}: {address} cannot be used as the service's address: {why}",
        command=command,
        address=address,
        why=why,
    )


def remote_sink(
    args: argparse.Namespace, command: str, bounded: bool = True, once: bool = False
) -> RemoteHistory | None:
    """The sink that posts to the service named, None when none is. An address that cannot be
    used is said on stderr, and turns wait in the outbox until it is fixed. `bounded`: each
    send takes at most the hook's time; `once`: a reason to wait is said when it changes."""
    from history.remote.settings import BadAddress

    try:
        service = service_of(args)
    except BadAddress as bad:
        print(address_sentence(command, bad.address, bad.problem), file=sys.stderr)
        service = None
    else:
        if service is None:
            return None
    # A hook into the local history never loads the HTTP client.
    from history.remote.client import TIMEOUT_SECONDS, Client
    from history.remote.sink import HOOK_REQUEST_SECONDS, HOOK_SECONDS, RemoteHistory

    home = resolve_home(args.home)
    ensure_private_dir(home)
    timeout = HOOK_REQUEST_SECONDS if bounded else TIMEOUT_SECONDS
    client = Client(service, timeout) if service is not None else None
    teller = Teller(command, service.url if service else "", home / "outbox", once)
    return RemoteHistory(home, client, teller.tell, budget=HOOK_SECONDS if bounded else None)


class Teller:
    """Says each note on stderr; with `once`, a reason to wait only when it changes."""

    def __init__(self, command: str, url: str, outbox: Path, once: bool = False) -> None:
        self.command, self.url, self.outbox, self.once = command, url, outbox, once
        self.said_waiting: str | None = None

    def tell(self, note: Note) -> None:
        line = self.line(note)
        if line is not None:
            print(line, file=sys.stderr, flush=True)

    def line(self, note: Note) -> str | None:
        from history.remote.sink import NoteKind

        if note.kind is NoteKind.DELIVERED:
            self.said_waiting = None
            return ngettext(
                "recall {command}: {count} turn that waited was delivered to {url}",
                "recall {command}: {count} turns that waited were delivered to {url}",
                note.count,
                command=self.command,
                count=number(note.count),
                url=self.url,
            )
        assert note.answer is not None
        if note.kind is NoteKind.REFUSED:
            return _(
                "recall {command}: the service refused turn {turn} ({why}); it is kept in {kept} "
                "and not sent again (`recall push --retry-refused` sends it once more)",
                command=self.command,
                turn=note.turn_id or "?",
                why=answer_words(note.answer),
                kept=note.kept,
            )
        why = answer_words(note.answer)
        if self.once and why == self.said_waiting:
            return None
        self.said_waiting = why
        waiting = ngettext(
            "{count} turn waits in {outbox}",
            "{count} turns wait in {outbox}",
            note.count,
            count=number(note.count),
            outbox=self.outbox,
        )
        if note.answer.key_refused:
            return _(
                "recall {command}: the service at {url} refused the key ({why}): set RECALL_KEY "
                "to a key that may record; {waiting}",
                command=self.command,
                url=self.url,
                why=why,
                waiting=waiting,
            )
        if note.answer.wrong_address:
            return _(
                "recall {command}: {url} does not take turns ({why}): check the service's "
                "address; {waiting}",
                command=self.command,
                url=self.url,
                why=why,
                waiting=waiting,
            )
        return _(
            "recall {command}: the service at {url} cannot take turns now ({why}); {waiting}, "
            "to go with the next hook, `recall watch` or `recall push`",
            command=self.command,
            url=self.url,
            why=why,
            waiting=waiting,
        )


def answer_words(answer: Answer) -> str:
    """`503: the reason`, or the connection's error alone."""
    if answer.status is None:
        return answer.reason or _("no answer")
    return f"{answer.status}: {answer.reason}" if answer.reason else str(answer.status)

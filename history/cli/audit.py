"""`recall audit`: what was forgotten, expired, added or revoked, when and by which key. The
audit trail holds no turn's text, so neither does this."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta

from history.access import AuditEvent, parse_period
from history.cli.common import NOTHING, OK, Commands, open_index
from history.cli.language import _


def period(text: str) -> timedelta:
    try:
        return parse_period(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a period such as 30m, 12h or 7d", text=text)
        ) from None


def _line(event: AuditEvent) -> str:
    what = [event.action.value]
    for label, value in (
        ("session", event.session_id),
        ("project", event.project),
        ("key", event.key_name),
    ):
        if value is not None:
            what.append(f"{label}={value}")
    if event.turns is not None:
        what.append(f"turns={event.turns}")
    when = event.at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    return f"{when}\t{event.actor}\t{' '.join(what)}"


def cmd_audit(args: argparse.Namespace) -> int:
    since = datetime.now(UTC) - args.since if args.since is not None else None
    events = open_index(args).members.events(since)
    if args.json:
        rows = [{**event.fields(), "at": event.at.isoformat()} for event in events]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return OK if events else NOTHING
    if not events:
        print(_("nothing in the audit trail"), file=sys.stderr)
        return NOTHING
    for event in events:
        print(_line(event))
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    audit = commands.add_parser(
        "audit", parents=[common], help=_("what was forgotten, expired, added or revoked")
    )
    audit.add_argument(
        "--since", type=period, metavar="PERIOD", help=_("only the last PERIOD: 30m, 12h, 7d")
    )
    audit.add_argument("--json", action="store_true", help=_("as JSON"))
    audit.set_defaults(run=cmd_audit)

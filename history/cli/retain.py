"""`recall retain`: keep less on purpose. Forget the turns past an age now (`--older-than`), or
keep a setting that the upkeep applies from then on (`--set`, `--unset`, `--show`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from history.cli.common import FAILED, NOTHING, OK, USAGE, Commands, open_index
from history.cli.language import _, ngettext, number
from history.domain import READ_ONLY
from history.projects import project_key
from history.retention import RetentionPolicy, parse_age

if TYPE_CHECKING:
    from history.index import HistoryIndex


def age(text: str) -> int:
    try:
        return parse_age(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not an age such as 90d, 12w or 1y", text=text)
        ) from None


def days_phrase(days: int) -> str:
    return ngettext("{count} day", "{count} days", days, count=number(days))


def policy_lines(policy: RetentionPolicy) -> list[str]:
    """`where: N days`, every project first; empty when nothing is set."""
    ordered = sorted(policy.keep_days.items(), key=lambda item: (item[0] is not None, item[0]))
    return [
        _("{where}: {days}", where=_("every project") if p is None else p, days=days_phrase(d))
        for p, d in ordered
    ]


def cmd_retain(args: argparse.Namespace) -> int:
    index = open_index(args)
    key = project_key(args.project) if args.project is not None else None
    where = _("every project") if key is None else key
    if args.show:
        lines = policy_lines(index.retention())
        print(
            "\n".join(lines) if lines else _("no retention is set: turns are kept until forgotten")
        )
        return OK
    if not index.writable:
        print(_("recall retain: nothing changed: {reason}", reason=_(READ_ONLY)), file=sys.stderr)
        return FAILED
    if args.set is not None:
        index.set_retention(args.set, key)
        print(
            _(
                "turns of {where} are kept {days}: older ones are out of search from now on "
                "and the upkeep erases them",
                where=where,
                days=days_phrase(args.set),
            )
        )
        return OK
    if args.unset:
        if not index.unset_retention(key):
            print(_("no retention was set for {where}", where=where), file=sys.stderr)
            return NOTHING
        print(_("retention for {where} removed: what it forgot stays forgotten", where=where))
        return OK
    return _older_than(args, index, key, where)


def _older_than(args: argparse.Namespace, index: HistoryIndex, key: str | None, where: str) -> int:
    from history.cli.forget import _ask, _yes

    days = days_phrase(args.older_than)
    if not args.yes:
        if not sys.stdin.isatty():
            print(
                _("recall retain: pass --yes to forget without a terminal to ask"), file=sys.stderr
            )
            return USAGE
        question = _(
            "Forget every turn of {where} asked more than {days} ago? This cannot be undone. "
            "[y/N] ",
            where=where,
            days=days,
        )
        if _ask(question) not in _yes():
            print(_("nothing forgotten"), file=sys.stderr)
            return NOTHING
    forgotten = index.retain(args.older_than, key)
    if not forgotten:
        print(_("no turn of {where} was asked more than {days} ago", where=where, days=days))
        return NOTHING
    print(
        ngettext(
            "forgot {count} turn of {where} asked more than {days} ago",
            "forgot {count} turns of {where} asked more than {days} ago",
            forgotten,
            count=number(forgotten),
            where=where,
            days=days,
        )
    )
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    retain = commands.add_parser(
        "retain", parents=[common], help=_("keep less: forget turns past an age")
    )
    what = retain.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--older-than",
        type=age,
        metavar="AGE",
        help=_("forget now the turns asked longer ago than AGE (90d, 12w, 1y)"),
    )
    what.add_argument(
        "--set",
        type=age,
        metavar="AGE",
        help=_("keep turns for AGE: the upkeep forgets older ones from then on"),
    )
    what.add_argument("--unset", action="store_true", help=_("drop the retention setting"))
    what.add_argument("--show", action="store_true", help=_("list the retention settings"))
    retain.add_argument("--project", help=_("workspace path: that project only"))
    retain.add_argument("--yes", action="store_true", help=_("do not ask for confirmation"))
    retain.set_defaults(run=cmd_retain)

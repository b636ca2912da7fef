"""`recall`: search, forget, inspect and serve the history index from a terminal.

Each command lives in its own module here and adds itself to the parser with `register`.
Exit codes: 0 found / done, 1 nothing found, 2 usage error, 3 failed (an unexpected error: one
line on stderr, the details in <home>/recall.log), 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from sqlalchemy.exc import DatabaseError, OperationalError

from history.cli import admin, failure, forget, imports, language, search, serving, views
from history.cli.common import FAILED, INTERRUPTED, OK, unreachable
from history.cli.language import _
from history.domain import READ_ONLY, ReadOnlyHistory
from history.i18n import LANGUAGES
from history.store.postgres.engine import DriverMissing
from history.store.sqlite.doctor import damage_reason, is_damage
from history.version import package_version

COMMANDS = (search, forget, admin, serving, imports, views)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home",
        default=argparse.SUPPRESS,
        help=_("index home holding history.db (default: $RECALL_HOME, else ~/.recall)"),
    )
    common.add_argument(
        "--database-url",
        default=argparse.SUPPRESS,
        metavar="URL",
        help=_(
            "a PostgreSQL database instead of the home's file, e.g. "
            "postgresql+psycopg://user@host/db (default: $RECALL_DATABASE_URL)"
        ),
    )
    common.add_argument(
        "--language",
        default=argparse.SUPPRESS,
        metavar="CODE",
        help=_(
            "the language to speak: {languages} (default: $RECALL_LANGUAGE, else the locale, "
            "else en)",
            languages=", ".join(LANGUAGES),
        ),
    )
    parser = argparse.ArgumentParser(
        prog="recall",
        parents=[common],
        description=_("Search, forget and serve the long-term history of a coding agent's turns."),
        epilog=_(
            "Exit codes: 0 found or done, 1 nothing found, 2 usage error, 3 failed (the "
            "details are in <home>/recall.log), 130 interrupted."
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"recall {package_version()}",
        help=_("show the version and exit"),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(commands, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    with language.spoken(language.choose(language.requested(words), os.environ)):
        return _run(words)


def _run(words: list[str]) -> int:
    with language.argparse_speaks():
        args = build_parser().parse_args(words)
    args.language = language.speaking()
    if not hasattr(args, "home"):
        args.home = None
    if not hasattr(args, "database_url"):
        args.database_url = None
    try:
        code: int = args.run(args)
    except ReadOnlyHistory:
        print(
            _("recall {command} failed: {reason}", command=args.command, reason=_(READ_ONLY)),
            file=sys.stderr,
        )
        return FAILED
    except (OperationalError, DriverMissing) as exc:  # expected of a server: no log entry
        print(
            _(
                "recall {command} failed: {reason}",
                command=args.command,
                reason=unreachable(args, exc),
            ),
            file=sys.stderr,
        )
        return FAILED
    except DatabaseError as exc:
        if not is_damage(exc):
            failure.report(args.command, exc, args.home)
            return FAILED
        print(
            _(
                "recall {command} failed: the history database is damaged ({reason}); "
                "`recall doctor` tells what can be recovered",
                command=args.command,
                reason=damage_reason(exc),
            ),
            file=sys.stderr,
        )
        return FAILED
    except BrokenPipeError:
        # `recall stats | head` closed the pipe: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK
    except KeyboardInterrupt:
        print(_("recall {command}: interrupted", command=args.command), file=sys.stderr)
        return INTERRUPTED
    except Exception as error:  # the last line of defence: no traceback reaches a person
        failure.report(args.command, error, args.home)
        return FAILED
    return code

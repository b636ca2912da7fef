"""`recall`: search, forget, inspect and serve the history index from a terminal.

Each command lives in its own module here and adds itself to the parser with `register`. A run
imports only the module of the command it was given (COMMAND_MODULES), and none for `--version`:
`recall` is started once per agent turn by a hook and once per search by an agent, so what it
imports is what every call pays (tests/e2e/test_cold_start.py pins it).
Exit codes: 0 found / done, 1 nothing found, 2 usage error, 3 failed (an unexpected error: one
line on stderr, the details in <home>/recall.log), 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType

from history.cli import language
from history.cli.common import FAILED, INTERRUPTED, OK, unreachable
from history.cli.language import _
from history.i18n import LANGUAGES

# Each command's module (history/cli/<module>.py), which registers it.
COMMAND_MODULES = {
    "search": "search",
    "forget": "forget",
    "retain": "retain",
    "stats": "admin",
    "migrate": "admin",
    "doctor": "admin",
    "serve": "serving",
    "mcp": "serving",
    "import": "imports",
    "hook": "hook",
    "show": "views",
    "sessions": "views",
    "projects": "views",
    "watch": "watch",
    "blame": "blame",
    "push": "push",
    "keys": "keys",
    "audit": "audit",
    "embed": "embed",
}
# The options before a command that take a value (the common ones).
VALUE_OPTIONS = frozenset({"--home", "--database-url", "--language"})


def command_word(words: Sequence[str]) -> str | None:
    """The command a line names: its first word that is not an option or an option's value.
    `--version`, `-h` and `--help` before any such word name none (the whole parser answers
    help; the version needs no parser)."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in ("--version", "-h", "--help"):
            return word
        elif word in VALUE_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def command_modules(command: str | None) -> list[ModuleType]:
    """The modules to register: the command's own, or every one (help, a typo, no command)."""
    wanted: Iterable[str] = (
        [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMAND_MODULES.values()
    )
    return [importlib.import_module(f"history.cli.{name}") for name in dict.fromkeys(wanted)]


class _Version(argparse.Action):
    """`--version`, reading the installed distribution's version only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kwargs: object) -> None:
        from history.version import package_version

        print(f"recall {package_version()}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` alone (what a run needs)."""
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
        action=_Version,
        nargs=0,
        help=_("show the version and exit"),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in command_modules(command):
        module.register(commands, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    with language.spoken(language.choose(language.requested(words), os.environ)):
        return _run(words)


def _run(words: list[str]) -> int:
    command = command_word(words)
    if command == "--version":
        from history.version import package_version

        print(f"recall {package_version()}")
        return OK
    with language.argparse_speaks():
        args = build_parser(command).parse_args(words)
    args.language = language.speaking()
    if not hasattr(args, "home"):
        args.home = None
    if not hasattr(args, "database_url"):
        args.database_url = None
    try:
        code: int = args.run(args)
    except BrokenPipeError:
        # `recall stats | head` closed the pipe: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return OK
    except KeyboardInterrupt:
        print(_("recall {command}: interrupted", command=args.command), file=sys.stderr)
        return INTERRUPTED
    except Exception as error:  # the last line of defence: no traceback reaches a person
        return _failed(args, error)
    return code


def _failed(args: argparse.Namespace, error: Exception) -> int:
    """One sentence for an error a command did not handle; the unexpected ones are logged."""
    from history.cli import failure
    from history.domain import READ_ONLY, ReadOnlyHistory

    if isinstance(error, ReadOnlyHistory):
        print(
            _("recall {command} failed: {reason}", command=args.command, reason=_(READ_ONLY)),
            file=sys.stderr,
        )
        return FAILED
    trouble = failure.database_trouble(error)
    if trouble is None:
        failure.report(args.command, error, args.home)
        return FAILED
    kind, reason = trouble
    if kind == "unreachable":  # expected of a server: no log entry
        reason = unreachable(args, error)
        print(
            _("recall {command} failed: {reason}", command=args.command, reason=reason),
            file=sys.stderr,
        )
        return FAILED
    print(
        _(
            "recall {command} failed: the history database is damaged ({reason}); "
            "`recall doctor` tells what can be recovered",
            command=args.command,
            reason=reason,
        ),
        file=sys.stderr,
    )
    return FAILED

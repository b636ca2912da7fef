"""argparse's own messages that a person can meet (usage, the help's section titles, the
errors of a wrong command line), listed here so that extraction puts them in the `cli`
catalogue: argparse looks them up through our catalogue (language.argparse_speaks).

Messages only a programmer meets (a parser built wrongly) are left out.
tests/integration/sqlite/test_cli_language.py holds this list to the running argparse's messages.
"""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks a message for extraction; argparse itself translates it."""
    return message


def ngettext(singular: str, plural: str, count: int) -> tuple[str, str]:
    """Marks a singular and plural for extraction (by this name); argparse picks the form."""
    return singular, plural


PLURALS = (ngettext("expected %s argument", "expected %s arguments", 2),)

MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("unexpected option string: %s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
)

# Raised only by a parser built wrongly: the programmer's, never the person's.
PROGRAMMERS = (
    "conflicting option string: %s",
    "conflicting option strings: %s",
    ".__call__() not defined",
    "'required' is an invalid argument for positionals",
    "mutually exclusive arguments must be optional",
    "%r is not callable",
    "cannot merge actions - two groups are named %r",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r",
    "dest= is required for options like %r",
    "invalid conflict_resolution value: %r",
    "cannot have multiple subparser arguments",
    "conflicting subparser: %s",
    "conflicting subparser alias: %s",
    'argument "-" with mode %r',
)

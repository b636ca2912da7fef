"""The language `recall` speaks to a person: chosen once at the start of `main` (`--language`,
else $RECALL_LANGUAGE, else the locale, else English), then every sentence of the CLI goes
through the `cli` catalogue of that language, argparse's own words (usage:, options, error:)
included. Command and option names, JSON output and stored text are never translated.
"""

from __future__ import annotations

import argparse
import gettext
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from unicodedata import east_asian_width

from history import i18n

DOMAIN = "cli"

_speaking: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


def _(message: str, /, **fields: object) -> str:
    """`message` in the language chosen (English when the catalogue lacks it), its str.format
    fields filled: `_("{value} is not a positive number", value=0)`."""
    return _speaking.gettext(message).format(**fields)


def ngettext(singular: str, plural: str, count: int, /, **fields: object) -> str:
    """The form of `singular`/`plural` the language uses for `count`, its fields filled."""
    return _speaking.ngettext(singular, plural, count).format(**fields)


def _argparse_gettext(message: str) -> str:
    return _speaking.gettext(message)  # argparse fills its own %-fields


def _argparse_ngettext(singular: str, plural: str, count: int) -> str:
    return _speaking.ngettext(singular, plural, count)


def number(count: int) -> str:
    """A whole number grouped by thousands as the language writes it."""
    return i18n.grouped(count, _language)


def columns(text: str) -> int:
    """How many terminal columns `text` takes: East Asian wide characters take two."""
    return sum(2 if east_asian_width(char) in "WF" else 1 for char in text)


def requested(argv: Sequence[str]) -> str | None:
    """The `--language` given on the command line (abbreviated as argparse allows), if any."""
    finder = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    finder.add_argument("--language")
    try:
        found, _rest = finder.parse_known_args(list(argv))
    except argparse.ArgumentError:  # `--language` with no value: the real parser says so
        return None
    value = found.language
    return value if isinstance(value, str) else None


def choose(flag: str | None, environ: Mapping[str, str]) -> str:
    """--language, else $RECALL_LANGUAGE, else the locale; an unknown language is English."""
    return i18n.choose(flag) if flag else i18n.from_environment(environ)


@contextmanager
def spoken(language: str) -> Iterator[None]:
    """Speak `language` inside the block (one `recall` command), English again after it."""
    global _speaking, _language
    saved = _speaking, _language
    _speaking, _language = i18n.translator(DOMAIN, language), language
    try:
        yield
    finally:
        _speaking, _language = saved


def speaking() -> str:
    return _language


def messages() -> i18n.Messages:
    """The `cli` catalogue in the language spoken, for code outside history/cli that words a
    sentence the CLI prints (the import summary)."""
    return i18n.Messages(DOMAIN, _language)


@contextmanager
def argparse_speaks() -> Iterator[None]:
    """argparse looks its words up through its module-level `_` and `ngettext` (bound to the
    process-wide gettext domain); while the parser is built and parses, they are our catalogue's,
    which carries argparse's messages too (history/cli/argparse_words.py)."""
    names = vars(argparse)
    saved: tuple[Callable[..., str], Callable[..., str]] = (names["_"], names["ngettext"])
    names["_"], names["ngettext"] = _argparse_gettext, _argparse_ngettext
    try:
        yield
    finally:
        names["_"], names["ngettext"] = saved

"""`recall search`'s query as a person types it: bare words among the options, `-` for a query on
stdin (bounded), and a note on stderr naming the words searched when the query had too many."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from history.cli.language import _, ngettext, number
from history.limits import MAX_QUERY_CHARS
from history.query import MAX_QUERY_WORDS, dropped_words, terms


class WordsAnywhere(argparse.ArgumentParser):
    """A parser whose words may stand between its options (`recall search login -k 3 hashing`):
    argparse leaves the words after an option over, and they are put back with the others."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        words = [word for word in extras if word == "-" or not word.startswith("-")]
        if words and isinstance(getattr(parsed, "query", None), list):
            parsed.query += words
            extras = [word for word in extras if word not in words]
        return parsed, extras


def read_query(words: list[str]) -> str | None:
    """The words given, or with `-` alone the query read from stdin; None after saying why
    there is none."""
    if words != ["-"]:
        return " ".join(words)
    text = sys.stdin.read(MAX_QUERY_CHARS + 1)
    if len(text) > MAX_QUERY_CHARS:
        print(
            _(
                "recall search: the query on stdin is longer than {most} characters; "
                "give its most telling words instead",
                most=number(MAX_QUERY_CHARS),
            ),
            file=sys.stderr,
        )
        return None
    if not text.strip():
        print(
            _("recall search: stdin held no query (with -, the query is read from it)"),
            file=sys.stderr,
        )
        return None
    return text


def say_kept(query: str) -> None:
    """With --json, the words searched when some were left out, on stderr."""
    kept = terms(query)
    dropped = dropped_words(query) if len(kept) == MAX_QUERY_WORDS else 0
    if dropped:
        print(
            ngettext(
                "recall search: only the first {count} words were searched ({words}); "
                "{dropped} more was left out",
                "recall search: only the first {count} words were searched ({words}); "
                "{dropped} more were left out",
                dropped,
                count=MAX_QUERY_WORDS,
                words=" ".join(kept),
                dropped=number(dropped),
            ),
            file=sys.stderr,
        )

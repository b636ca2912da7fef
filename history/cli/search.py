"""`recall search`: earlier turns for a person at a terminal, or the hits as JSON.

The hits are shown as the recall_history tool shows them to a model; the sentences around them
are the terminal's own (`--everywhere`, `--days`, `-k`), not the tool's arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, cast

from history.cli.common import NOTHING, OK, USAGE, Commands, positive, top_k
from history.cli.language import _, ngettext, number
from history.cli.search_query import WordsAnywhere, read_query, say_kept
from history.limits import MAX_K, MAX_QUERY_CHARS
from history.tools.arguments import BadArgument
from history.tools.recall_history import RecallHistoryTool

if TYPE_CHECKING:
    from history.index import HistoryIndex


class TerminalSearch(RecallHistoryTool):
    """recall_history's search and hit blocks, in the terminal's words."""

    def run(
        self,
        query: str,
        days: int | None = None,
        k: int = 5,
        everywhere: bool = False,
        words_only: bool | None = None,
    ) -> str:
        try:
            return self._answer(query, days, k, everywhere, words_only)
        except BadArgument as bad:  # anything else is the CLI's last line of defence's
            return f"error: {bad}"

    def _header(
        self, shown: int, query: str, days: int | None, everywhere: bool, more: bool, k: int
    ) -> str:
        fields = {"count": shown, "query": query, "project": self.project, "days": days}
        if more:  # the best shown, not all: counting every match of a common word is slow
            header = self._best(shown, days, everywhere, fields)
        elif everywhere and days is None:
            header = ngettext(
                "{count} turn matches {query} in every project, best first.",
                "{count} turns match {query} in every project, best first.",
                shown,
                **fields,
            )
        elif everywhere:
            header = ngettext(
                "{count} turn matches {query} in every project from the last {days} days, "
                "best first.",
                "{count} turns match {query} in every project from the last {days} days, "
                "best first.",
                shown,
                **fields,
            )
        elif days is None:
            header = ngettext(
                "{count} turn matches {query} in {project}, best first.",
                "{count} turns match {query} in {project}, best first.",
                shown,
                **fields,
            )
        else:
            header = ngettext(
                "{count} turn matches {query} in {project} from the last {days} days, best first.",
                "{count} turns match {query} in {project} from the last {days} days, best first.",
                shown,
                **fields,
            )
        if more:
            header += " " + (
                _("More match: add words to narrow the search.")
                if k == MAX_K
                else _("More match: -k {most} shows up to {most}.", most=MAX_K)
            )
        return header

    @staticmethod
    def _best(shown: int, days: int | None, everywhere: bool, fields: dict[str, object]) -> str:
        if everywhere and days is None:
            return ngettext(
                "The best turn of those that match {query} in every project.",
                "The best {count} turns of those that match {query} in every project, best first.",
                shown,
                **fields,
            )
        if everywhere:
            return ngettext(
                "The best turn of those that match {query} in every project from the last "
                "{days} days.",
                "The best {count} turns of those that match {query} in every project from the "
                "last {days} days, best first.",
                shown,
                **fields,
            )
        if days is None:
            return ngettext(
                "The best turn of those that match {query} in {project}.",
                "The best {count} turns of those that match {query} in {project}, best first.",
                shown,
                **fields,
            )
        return ngettext(
            "The best turn of those that match {query} in {project} from the last {days} days.",
            "The best {count} turns of those that match {query} in {project} from the last "
            "{days} days, best first.",
            shown,
            **fields,
        )

    def _nothing(self, query: str, days: int | None, everywhere: bool) -> str:
        """What is true when nothing is shown, and what to try next."""
        stored = self.index.count(None if everywhere else self.project)
        if not stored and everywhere:
            return _(
                "The history is empty: no turn was recorded, or all were forgotten. "
                "`recall import auto` brings in the transcripts your agents already wrote."
            )
        if not stored:
            return _(
                "No turn of {project} is in the history: none was recorded there, or "
                "they were forgotten. --everywhere searches every project; --project names "
                "another.",
                project=self.project,
            )
        fields = {"count": number(stored), "days": days, "query": query, "project": self.project}
        if days is not None and everywhere:
            return _(
                "None of the turns of the last {days} days in every project matches {query}; "
                "an older one may: search again without --days.",
                **fields,
            )
        if days is not None:
            return _(
                "None of the turns of the last {days} days in {project} matches {query}; "
                "an older one may: search again without --days.",
                **fields,
            )
        if everywhere:
            return ngettext(
                "The {count} turn in every project does not match {query}. Try other words "
                "(a function, file or error name).",
                "None of the {count} turns in every project matches {query}. Try other words "
                "(a function, file or error name).",
                stored,
                **fields,
            )
        return ngettext(
            "The {count} turn in {project} does not match {query}. Try other words "
            "(a function, file or error name), or --everywhere.",
            "None of the {count} turns in {project} matches {query}. Try other words "
            "(a function, file or error name), or --everywhere.",
            stored,
            **fields,
        )


def cmd_search(args: argparse.Namespace) -> int:
    query = read_query(args.query)
    if query is None:
        return USAGE
    from history.direct_read import ReadingIndex

    # A current file is searched through the driver alone (history/direct_read.py).
    index = ReadingIndex(args.home, args.database_url)
    index.meaning_once = True  # one or two searches, then the process exits
    if args.meaning or args.words_only:
        index.meaning_search = args.meaning
    project = os.getcwd() if args.project is None else args.project
    scope = None if args.everywhere else project
    if args.json:
        hits = index.search(query, project=scope, days=args.days, k=args.k)
        rows = [{**asdict(hit), "asked_at": hit.asked_at.isoformat()} for hit in hits]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        say_kept(query)
        return OK if hits else NOTHING
    search = TerminalSearch(cast("HistoryIndex", index), project, language=args.language)
    answer = search.run(query, days=args.days, k=args.k, everywhere=args.everywhere)
    if answer.startswith("error: "):
        print(answer, file=sys.stderr)
        return USAGE
    print(answer)
    return OK if index.search(query, project=scope, days=args.days, k=1) else NOTHING


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    search = commands.add_parser("search", parents=[common], help=_("find earlier turns"))
    search.__class__ = WordsAnywhere  # the sub-parsers' class is not chosen one by one
    search.add_argument(
        "query",
        nargs="+",
        help=_(
            "words to look for, e.g. login function; - reads the query from stdin (at most "
            "{most} characters)",
            most=number(MAX_QUERY_CHARS),
        ),
    )
    where = search.add_mutually_exclusive_group()
    where.add_argument("--project", help=_("workspace path (default: the current directory)"))
    where.add_argument("--everywhere", action="store_true", help=_("search every project"))
    search.add_argument("--days", type=positive, help=_("only turns of the last N days"))
    search.add_argument(
        "-k", type=top_k, default=5, help=_("how many turns, 1..{most} (default 5)", most=MAX_K)
    )
    search.add_argument("--json", action="store_true", help=_("print hits as JSON"))
    ranking = search.add_mutually_exclusive_group()
    ranking.add_argument(
        "--meaning",
        action="store_true",
        help=_(
            "blend in search by meaning (default where the meaning extra is installed, unless "
            "RECALL_MEANING=0)"
        ),
    )
    ranking.add_argument(
        "--words-only",
        action="store_true",
        help=_("rank by the words alone, without search by meaning"),
    )
    search.set_defaults(run=cmd_search)

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

from history.cli.common import NOTHING, OK, USAGE, Commands, open_index, positive, top_k
from history.tools.arguments import BadArgument
from history.tools.recall_history import MAX_K, RecallHistoryTool


class TerminalSearch(RecallHistoryTool):
    """recall_history's search and hit blocks, in the terminal's words."""

    def run(self, query: str, days: int | None = None, k: int = 5, everywhere: bool = False) -> str:
        try:
            return self._answer(query, days, k, everywhere)
        except BadArgument as bad:  # anything else is the CLI's last line of defence's
            return f"error: {bad}"

    def _header(
        self, shown: int, query: str, days: int | None, everywhere: bool, more: bool, k: int
    ) -> str:
        scope = "every project" if everywhere else self.project
        window = f" from the last {days} days" if days is not None else ""
        verb = "turn matches" if shown == 1 else "turns match"
        header = f"{shown} {verb} {query} in {scope}{window}, best first."
        if more:
            header += (
                " More match: add words to narrow the search."
                if k == MAX_K
                else f" More match: -k {MAX_K} shows up to {MAX_K}."
            )
        return header

    def _nothing(self, query: str, days: int | None, everywhere: bool) -> str:
        """What is true when nothing is shown, and what to try next."""
        stored = self.index.count(None if everywhere else self.project)
        if not stored and everywhere:
            return (
                "The history is empty: no turn was recorded, or all were forgotten. "
                "`recall import auto` brings in the transcripts your agents already wrote."
            )
        if not stored:
            return (
                f"No turn of {self.project} is in the history: none was recorded there, or "
                "they were forgotten. --everywhere searches every project; --project names "
                "another."
            )
        where = "every project" if everywhere else self.project
        turns = f"{stored:,} turn{'' if stored == 1 else 's'}"
        if days is not None:
            return (
                f"None of the turns of the last {days} days in {where} matches {query}; "
                "an older one may: search again without --days."
            )
        return (
            f"None of the {turns} in {where} matches {query}. Try other words (a function, "
            "file or error name)" + ("." if everywhere else ", or --everywhere.")
        )


def cmd_search(args: argparse.Namespace) -> int:
    index = open_index(args)
    project = os.getcwd() if args.project is None else args.project
    scope = None if args.everywhere else project
    if args.json:
        hits = index.search(args.query, project=scope, days=args.days, k=args.k)
        rows = [{**asdict(hit), "asked_at": hit.asked_at.isoformat()} for hit in hits]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return OK if hits else NOTHING
    search = TerminalSearch(index, project)
    answer = search.run(args.query, days=args.days, k=args.k, everywhere=args.everywhere)
    if answer.startswith("error: "):
        print(answer, file=sys.stderr)
        return USAGE
    print(answer)
    return OK if index.search(args.query, project=scope, days=args.days, k=1) else NOTHING


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    search = commands.add_parser("search", parents=[common], help="find earlier turns")
    search.add_argument("query", help="words to look for, e.g. 'login function'")
    where = search.add_mutually_exclusive_group()
    where.add_argument("--project", help="workspace path (default: the current directory)")
    where.add_argument("--everywhere", action="store_true", help="search every project")
    search.add_argument("--days", type=positive, help="only turns of the last N days")
    search.add_argument("-k", type=top_k, default=5, help=f"how many turns, 1..{MAX_K} (default 5)")
    search.add_argument("--json", action="store_true", help="print hits as JSON")
    search.set_defaults(run=cmd_search)

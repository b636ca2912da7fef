"""`recall search`: the recall_history tool's answer, or the hits as JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict

from history.cli.common import NOTHING, OK, USAGE, Commands, open_index, positive, top_k
from history.tools.recall_history import MAX_K, RecallHistoryTool


def cmd_search(args: argparse.Namespace) -> int:
    index = open_index(args)
    project = os.getcwd() if args.project is None else args.project
    scope = None if args.everywhere else project
    if args.json:
        hits = index.search(args.query, project=scope, days=args.days, k=args.k)
        rows = [{**asdict(hit), "asked_at": hit.asked_at.isoformat()} for hit in hits]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return OK if hits else NOTHING
    tool = RecallHistoryTool(index, project)
    answer = tool.run(args.query, days=args.days, k=args.k, everywhere=args.everywhere)
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

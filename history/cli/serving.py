"""`recall serve` and `recall mcp`: the index for other programs, over HTTP or MCP stdio."""

from __future__ import annotations

import argparse
import sys

from history.cli.common import OK, USAGE, Commands, positive


def cmd_serve(args: argparse.Namespace) -> int:
    from history.api.serve import serve

    try:
        serve(args.home, host=args.host, port=args.port)
    except ValueError as refused:
        print(f"recall serve: {refused}", file=sys.stderr)
        return USAGE
    return OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from history.mcp_server import main

    main(args.project, args.home)
    return OK


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser("serve", parents=[common], help="serve the HTTP API")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address (default 127.0.0.1; any other needs RECALL_TOKEN)",
    )
    serve.add_argument("--port", type=positive, default=8765, help="port (default 8765)")
    serve.set_defaults(run=cmd_serve)

    mcp = commands.add_parser(
        "mcp", parents=[common], help="serve recall_history and recall_turn over MCP stdio"
    )
    mcp.add_argument("--project", help="workspace path (default: the current directory)")
    mcp.set_defaults(run=cmd_mcp)

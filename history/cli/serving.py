"""`recall serve` and `recall mcp`: the index for other programs, over HTTP or MCP stdio."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from history.cli.common import OK, USAGE, Commands, port_number, positive, seconds
from history.cli.language import _
from history.serve_settings import KEEP_ALIVE_SECONDS, LOG_LEVELS, REQUEST_READ_SECONDS


def host_name(text: str) -> str:
    """An `--allow-host` value: a name or an address as a Host header has it, without a port."""
    name = text.strip()
    bracketed = name.startswith("[") and name.endswith("]")
    if not name or any(char in name for char in ",/@ ") or (":" in name and not bracketed):
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a host name (a name or an address, without a port)", text=text)
        )
    return name


def cmd_serve(args: argparse.Namespace) -> int:
    from history.api.server import guarded_by_keys, is_loopback, serve

    token = os.environ.get("RECALL_TOKEN")
    if (
        not token
        and not is_loopback(args.host)
        and not args.open_to_network_without_token
        and not guarded_by_keys(args.home, args.database_url)
    ):
        print(
            _(
                "recall serve: refusing to serve on {host} without a token: anyone who can reach "
                "it could read, change and forget the whole history; set RECALL_TOKEN, bind "
                "127.0.0.1, or pass --open-to-network-without-token if that is what you want.",
                host=args.host,
            ),
            file=sys.stderr,
        )
        return USAGE
    try:
        serve(
            args.home,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            read_timeout=args.read_timeout,
            keep_alive=args.keep_alive,
            database_url=args.database_url,
            workers=args.workers,
            allowed_hosts=args.allow_host,
            open_without_token=args.open_to_network_without_token,
        )
    except ValueError as refused:
        print(f"recall serve: {refused}", file=sys.stderr)
        return USAGE
    return OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from history.tools.mcp_server import serve

    serve(args.project, args.home, args.database_url, args.language)
    # The client has gone and the index is closed: end the process now. Tearing down the
    # interpreter that loaded the MCP SDK took 0.8 s more, during which an agent that restarts
    # its servers waits (tests/e2e/test_cold_start.py).
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(OK)


def register(commands: Commands, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser("serve", parents=[common], help=_("serve the HTTP API"))
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help=_("address (default 127.0.0.1; any other needs RECALL_TOKEN)"),
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        type=host_name,
        metavar="NAME",
        help=_(
            "also answer requests addressed to NAME (repeatable); only 127.0.0.1, localhost, "
            "[::1] and the address a request arrived on are answered otherwise"
        ),
    )
    serve.add_argument(
        # Named for what it does, so that nobody types it without meaning it.
        "--open-to-network-without-token",
        action="store_true",
        help=_(
            "serve another address than loopback without RECALL_TOKEN: anyone who can reach "
            "it can read, change and forget the whole history"
        ),
    )
    serve.add_argument(
        "--port", type=port_number, default=8765, help=_("port (default 8765; 0: any free one)")
    )
    serve.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="info",
        help=_(
            "info (default): a start-up line and one line per request, never a query's "
            "words; warning: problems only"
        ),
    )
    serve.add_argument(
        "--read-timeout",
        type=seconds,
        default=REQUEST_READ_SECONDS,
        help=_(
            "seconds a request may take to arrive whole (default {seconds})",
            seconds=format(REQUEST_READ_SECONDS, "g"),
        ),
    )
    serve.add_argument(
        "--keep-alive",
        type=positive,
        default=KEEP_ALIVE_SECONDS,
        help=_(
            "seconds an idle connection stays open (default {seconds})",
            seconds=KEEP_ALIVE_SECONDS,
        ),
    )
    serve.add_argument(
        "--workers",
        type=positive,
        default=1,
        help=_("worker processes (default 1; several share one PostgreSQL database well)"),
    )
    serve.set_defaults(run=cmd_serve)

    mcp = commands.add_parser(
        "mcp", parents=[common], help=_("serve recall_history and recall_turn over MCP stdio")
    )
    mcp.add_argument("--project", help=_("workspace path (default: the current directory)"))
    mcp.set_defaults(run=cmd_mcp)

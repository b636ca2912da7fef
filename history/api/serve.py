"""`recall serve`: the HTTP API on uvicorn. Loopback unless a token guards it.

Also `python -m history.api.serve --home H --host 127.0.0.1 --port 8765`.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections.abc import Sequence

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from history.api.app import create_app
from history.index import HistoryIndex, history_for


def is_loopback(host: str) -> bool:
    """`127.0.0.0/8`, `::1` and `localhost`; anything else (a name, `0.0.0.0`) is not."""
    name = host.strip().removeprefix("[").removesuffix("]").lower()
    if name in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, port: int, token: str | None) -> None:
    """Raise ValueError, with the sentence to print, for a bind that must not happen."""
    if not 0 <= port <= 65_535:
        raise ValueError(f"port {port} is not a TCP port (0 to 65535)")
    if not token and not is_loopback(host):
        raise ValueError(
            f'refusing to serve on "{host}": only a loopback address (127.0.0.1, ::1, localhost) '
            "may be bound without a token; set RECALL_TOKEN so clients must send "
            "`Authorization: Bearer <token>`, or bind 127.0.0.1"
        )


def _closing_on_shutdown(app: ASGIApp, index: HistoryIndex) -> ASGIApp:
    """Close the index when the server shuts down. uvicorn re-raises SIGTERM after a graceful
    shutdown, so code after `uvicorn.run` would not run then; lifespan shutdown does."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            return await app(scope, receive, send)

        async def send_closing(message: Message) -> None:
            if message["type"].startswith("lifespan.shutdown."):
                index.close()
            await send(message)

        await app(scope, receive, send_closing)

    return wrapped


def serve(
    home: str | None, host: str = "127.0.0.1", port: int = 8765, token: str | None = None
) -> None:
    """Serve the index of `home` until Ctrl-C or SIGTERM. `token` defaults to `$RECALL_TOKEN`.

    Raises ValueError, before opening anything, for a non-loopback `host` without a token.
    uvicorn's access log stays off: search URLs carry what people searched for.
    """
    if token is None:
        token = os.environ.get("RECALL_TOKEN") or None
    elif not token:
        raise ValueError("the token is empty; pass a secret or leave it unset")
    check_bind(host, port, token)
    index = history_for(home)
    try:
        app = _closing_on_shutdown(create_app(index, token=token), index)
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
        pass
    finally:
        index.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m history.api.serve", description="Serve the recall-history HTTP API."
    )
    parser.add_argument("--home", help="history home (default $RECALL_HOME or ~/.recall)")
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    args = parser.parse_args(argv)
    try:
        serve(args.home, host=args.host, port=args.port)
    except ValueError as refused:
        print(f"history.api.serve: {refused}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

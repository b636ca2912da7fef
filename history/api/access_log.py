"""One log line per request: method, path, status and milliseconds.

Never a query value: a search's `q` is what someone looked for, so `/api/code/history?q=…`
is logged as `/api/code/history?q&k`. The path itself goes through `redact` (an id in it could
hold a pasted token).
"""

from __future__ import annotations

import logging
import time
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from history.redact import redact

log = logging.getLogger("history.access")
MAX_PATH_CHARS = 200


def shown_path(scope: Scope) -> str:
    """The request's path, with the names of its query parameters and none of their values."""
    path = redact(str(scope.get("path", "")))[:MAX_PATH_CHARS]
    query = scope.get("query_string", b"").decode("latin-1")
    names = dict.fromkeys(name for name, _ in parse_qsl(query, keep_blank_values=True))
    named = "&".join(redact(name)[:40] for name in list(names)[:10])
    return f"{path}?{named}" if named else path


class AccessLog:
    """ASGI middleware: logs each HTTP request once its response has started (or the request
    ended without one) at INFO on `history.access`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started, status = time.perf_counter(), 0

        async def noting(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            if log.isEnabledFor(logging.INFO):
                elapsed = (time.perf_counter() - started) * 1000
                shown = shown_path(scope)
                log.info("%s %s %s %.1f ms", scope["method"], shown, status or "-", elapsed)

"""The service's token: a stranger is refused on the request's head, before a byte of its body
is read, and before any page (the docs and the schema included) is served. `/healthz` stays
open: it says only that the service is up; so does the page at `/` with its two assets, which hold
no history (the page asks for the token and sends it with each of its API calls)."""

from __future__ import annotations

import hmac
import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from history.i18n import N_, from_accept_language, translator
from history.web.page import PAGE_PATHS

UNAUTHORIZED = N_("this service needs an `Authorization: Bearer <token>` header with its token")
OPEN_PATHS = frozenset({"/healthz", *PAGE_PATHS})


def authorized(headers: Headers, token: str) -> bool:
    """Whether the request carries `Authorization: Bearer <token>`, compared in constant time."""
    scheme, _, given = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(
        given.strip().encode("latin-1", "replace"), token.encode("utf-8", "replace")
    )


class TokenGate:
    """ASGI middleware: every HTTP request but `OPEN_PATHS` needs the token, or gets a 401
    without its body being read."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("an empty token guards nothing: pass None or a secret")
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        if authorized(Headers(scope=scope), self.token):
            return await self.app(scope, receive, send)
        await refuse(send, from_accept_language(Headers(scope=scope).get("accept-language")))


async def refuse(send: Send, language: str = "en") -> None:
    """A 401 in the service's error shape, its detail in `language`. `Connection: close`: the
    body it did not read is not waited for."""
    detail = translator("api", language).gettext(UNAUTHORIZED)
    body = json.dumps({"detail": detail}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b"Bearer"),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})

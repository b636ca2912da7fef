"""What every endpoint checks before FastAPI parses anything, in this order: the token (a
stranger gets 401 on the request's head, its body unread), the declared size (413), the
content type of a body (415 with a plain reason), then the body itself as it streams (413 past
`MAX_BODY_BYTES`, 422 when it is not UTF-8). An index that cannot be read or written is a 503
with a reason, logged by exception type, never with turn text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from email.message import Message as MimeMessage
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive

from history.api.auth import UNAUTHORIZED, authorized
from history.api.languages import Detail
from history.api.models import MAX_BODY_BYTES
from history.domain import ReadOnlyHistory
from history.i18n import N_

log = logging.getLogger(__name__)

TOO_LARGE = Detail(N_("the body is over {limit} bytes"), limit=MAX_BODY_BYTES)
NOT_JSON = Detail(
    N_(
        "the body must be JSON, sent with `Content-Type: application/json` "
        "(curl: --json '{{...}}', or -H 'Content-Type: application/json')"
    )
)
UNAVAILABLE = N_("the history could not be read or written right now; try again later")
NOT_UTF8 = N_("the body is not UTF-8")
STALLED = 408  # the client went away, or stopped sending, before its body was whole
# Former names of query parameters, still understood: `workspace` is `project` everywhere.
QUERY_ALIASES = {b"workspace": b"project"}
# What history/api/keys.py's gate puts in the scope of a request it let in.
GATED = "recall.access"


def bounded_route(token: str | None) -> type[APIRoute]:
    """The route class of a router whose endpoints need `token` (None: open)."""
    return type("BoundedRoute", (BoundedRoute,), {"token": token})


class BoundedRoute(APIRoute):
    token: str | None = None

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def bounded(request: Request) -> Response:
            let_in = GATED in request.scope  # by the gate, with the token or a member's key
            if self.token and not let_in and not authorized(request.headers, self.token):
                raise HTTPException(
                    401, UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer", "Connection": "close"}
                )
            # Eight digits are enough to tell: a longer number is over the limit too.
            declared = request.headers.get("content-length", "").lstrip("0")
            if declared.isascii() and declared.isdigit() and int(declared[:8]) > MAX_BODY_BYTES:
                raise HTTPException(413, TOO_LARGE)
            if self.body_field is not None and not _is_json(request.headers.get("content-type")):
                raise HTTPException(415, NOT_JSON)
            try:
                body = await _read(request)
            except ClientDisconnect:
                return Response(status_code=STALLED)
            scope = {**request.scope, "query_string": _canonical(request.scope["query_string"])}
            try:
                return await handle(Request(scope, _replay(body, request.receive)))
            except ReadOnlyHistory as exc:
                raise HTTPException(503, str(exc)) from exc
            except (SQLAlchemyError, OSError) as exc:
                log.warning("%s %s failed: %s", request.method, self.path, type(exc).__name__)
                raise HTTPException(503, UNAVAILABLE) from exc

        return bounded


def _canonical(query: bytes) -> bytes:
    """The query with each former parameter name replaced by its name now, unless the new
    name is there too (then it wins)."""
    pairs = [pair.partition(b"=") for pair in query.split(b"&")]
    present = {name for name, _, _ in pairs}

    def renamed(name: bytes) -> bytes:
        new = QUERY_ALIASES.get(name)
        return new if new is not None and new not in present else name

    return b"&".join(renamed(name) + eq + value for name, eq, value in pairs)


def _is_json(content_type: str | None) -> bool:
    """What FastAPI parses as JSON: a `json` or `+json` subtype."""
    if not content_type:
        return False
    parsed = MimeMessage()
    parsed["content-type"] = content_type
    subtype = parsed.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


async def _read(request: Request) -> bytes:
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > MAX_BODY_BYTES:
            raise HTTPException(413, TOO_LARGE)
    body = bytes(received)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        error = {"type": "json_invalid", "loc": ("body",), "msg": NOT_UTF8}
        raise RequestValidationError([error]) from None
    return body


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()  # a disconnect, from here on
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay

"""The service answers only its own pages: a request addressed by another name, or a change
sent by a page of another site, is refused before any handler runs.

A page on any site can rebind its own name to 127.0.0.1 and then call the service as that name:
the browser sends `Host: evil.example:8765`. So the `Host` must be a name the service listens as:
127.0.0.1, localhost, [::1], the address the connection arrived on, or a name given with
`recall serve --allow-host`, with the listening port or none; anything else gets 421. A request
with no `Host` at all (HTTP/1.0) is let through: every browser sends one, so it comes from a
program, not from a page.

A page of another origin cannot rebind anything to reach a loopback name, but it can still
send a POST or a DELETE (a form, a `fetch` in no-cors mode). So every state-changing request
whose `Origin` is not the service's own (nor one of the CORS origins allowed), or which the
browser marks `Sec-Fetch-Site: cross-site` or `same-site` (another port of 127.0.0.1 is the
same site, another origin), gets 403. A client outside a browser sends neither header.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from history.i18n import N_, from_accept_language, translator

MISDIRECTED = N_(
    "this service answers only requests addressed to it as 127.0.0.1, localhost or [::1] "
    "(or a name given with `recall serve --allow-host`), with its port"
)
CROSS_SITE = N_(
    "a page of another site may not change this history: the request's origin is not this "
    "service's own"
)
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
Address = tuple[str, int | None]  # a host name (IPv6 without brackets), its port if given


def host_name(name: str) -> str:
    """A name as the guard compares it: lowercase, an IPv6 address without its brackets."""
    return name.strip().lower().removeprefix("[").removesuffix("]")


def split_host(value: str) -> Address | None:
    """`Host`'s name and port: `127.0.0.1:8765`, `[::1]:8765`, `localhost`; None if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    elif value.count(":") > 1:  # an IPv6 address without brackets is no Host
        return None
    else:
        name, colon, port = value.partition(":")
        port = port if colon else None
    if not name or (port is not None and not (port.isdigit() and len(port) <= 5)):
        return None
    return name, None if port is None else int(port)


def _origin(value: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(value.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None  # `null` (a sandboxed page, a file) among them
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS.get(parts.scheme, 0)


class OriginGuard:
    """ASGI middleware: 421 for a `Host` the service is not, 403 for a change from elsewhere."""

    def __init__(
        self, app: ASGIApp, allowed_hosts: Iterable[str] = (), cors_origins: Iterable[str] = ()
    ) -> None:
        self.app = app
        self.names = LOOPBACK_NAMES | {host_name(name) for name in allowed_hosts if name.strip()}
        self.cors = {found for origin in cors_origins if (found := _origin(origin))}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        hosts = headers.getlist("host")
        language = from_accept_language(headers.get("accept-language"))
        if len(hosts) > 1 or (hosts and not self._is_ours(hosts[0], scope)):
            return await refuse(send, 421, MISDIRECTED, language)
        if scope.get("method", "GET").upper() in CHANGING and not self._same_origin(headers, scope):
            return await refuse(send, 403, CROSS_SITE, language)
        await self.app(scope, receive, send)

    def _is_ours(self, host: str, scope: Scope) -> bool:
        address = split_host(host)
        if address is None:
            return False
        name, port = address
        server = scope.get("server") or (None, None)
        listening_name = host_name(str(server[0])) if server[0] else None
        if name not in self.names and name != listening_name:
            return False
        return port is None or server[1] is None or port == server[1]

    def _same_origin(self, headers: Headers, scope: Scope) -> bool:
        origin = headers.get("origin")
        if origin is not None:
            sent = _origin(origin)
            if sent is None:
                return False
            if sent in self.cors:
                return True  # an origin the service was told to let in (`cors_origins`)
            if sent != self._own_origin(headers, scope):
                return False
        site = headers.get("sec-fetch-site", "").strip().lower()
        return site not in ("cross-site", "same-site")

    def _own_origin(self, headers: Headers, scope: Scope) -> tuple[str, str, int] | None:
        scheme = str(scope.get("scheme", "http"))
        address = split_host(headers.get("host", ""))
        if address is None:  # no Host (HTTP/1.0): the address the connection arrived on
            server = scope.get("server") or (None, None)
            if not server[0]:
                return None
            address = (host_name(str(server[0])), server[1])
        name, port = address
        return scheme, name, port or DEFAULT_PORTS.get(scheme, 0)


async def refuse(send: Send, status: int, reason: str, language: str = "en") -> None:
    """`status` in the service's error shape, its detail in `language`. `Connection: close`:
    the body it did not read is not waited for."""
    body = json.dumps({"detail": translator("api", language).gettext(reason)}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

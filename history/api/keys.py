"""Members' keys at the door: who a request is, and whether its key's rights and projects let it
in, decided on the request's head before a byte of its body is read.

Three ways to run, one gate. Tokenless and keyless (a machine's own service on loopback): every
request is let in, as `local`. With `RECALL_TOKEN` and no key: the token or a 401, as ever. Once
the database holds a key (a revoked one counts: revoking the last key does not open the service),
every request but `/healthz` and the page needs `Authorization: Bearer <key>` (or the token,
which has every right): 401 for none or a key that is unknown, wrong or revoked, 403 for a right
or a project the key lacks. A key is read from the database on every request, so a revoked key
stops at its next request, in every worker.

The right a request needs follows from its method and path: GET reads (`/api/admin/*` needs
`admin`), POST records, DELETE forgets. A key limited to projects must name one of them in
`project` where a request may span projects (search, the list of conversations, files), and one
limited to a single project is narrowed to it when it names none; what
a request names by id (a turn, a conversation) is checked by its endpoint (`access_of`).
"""

from __future__ import annotations

import json
import logging
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from history.access import LOCAL, TOKEN, Access, Right
from history.api.auth import OPEN_PATHS, UNAUTHORIZED, authorized
from history.api.limits import GATED
from history.i18n import N_, from_accept_language, translator
from history.index import HistoryIndex

log = logging.getLogger(__name__)

NEEDS_KEY = N_("this service needs an `Authorization: Bearer <key>` header with a member's key")
BAD_KEY = N_("this key is unknown, wrong or revoked")
LACKS_RIGHT = N_("this key may not {right} (its rights: {rights})")
OUTSIDE_PROJECTS = N_("this key may not touch this project (its projects: {projects})")
NAME_A_PROJECT = N_("this key is limited to projects: name one with `project` ({projects})")
UNAVAILABLE = N_("the history could not be read or written right now; try again later")
RIGHT_WORDS = {
    Right.READ: N_("read"),
    Right.RECORD: N_("record"),
    Right.FORGET: N_("forget"),
    Right.ADMIN: N_("read the audit trail"),
}
# Where a request spans every project unless it names one.
SPANNING_PATHS = frozenset({"/api/code/history", "/api/code/sessions", "/api/code/files"})
PROJECT_PARAMETERS = ("project", "workspace")


def needed_right(method: str, path: str) -> Right:
    if path.startswith("/api/admin/"):
        return Right.ADMIN
    if method == "DELETE":
        return Right.FORGET
    if method in ("POST", "PUT", "PATCH"):
        return Right.RECORD
    return Right.READ


def access_of(request: Request) -> Access:
    """Who the gate let in (every right when no gate stands before the endpoints)."""
    found = request.scope.get(GATED)
    return found if isinstance(found, Access) else LOCAL


def bearer(headers: Headers) -> str | None:
    scheme, _, given = headers.get("authorization", "").partition(" ")
    return given.strip() if scheme.lower() == "bearer" and given.strip() else None


class KeyGate:
    """ASGI middleware: the token, members' keys, or the door left open (see the module)."""

    def __init__(self, app: ASGIApp, index: HistoryIndex, token: str | None = None) -> None:
        if token is not None and not token:
            raise ValueError("an empty token guards nothing: pass None or a secret")
        self.app, self.index, self.token = app, index, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        language = from_accept_language(headers.get("accept-language"))
        given = bearer(headers)
        if self.token and authorized(headers, self.token):
            return await self._let_in(TOKEN, scope, receive, send)
        try:
            keys_apply = await run_in_threadpool(lambda: self.index.members.apply)
            access = None
            if keys_apply and given is not None:
                access = await run_in_threadpool(self.index.members.access, given)
        except Exception as exc:  # the database is down: no key can be checked
            log.warning("checking a key failed: %s", type(exc).__name__)
            return await respond(send, 503, _said(UNAVAILABLE, language))
        if not keys_apply:
            if self.token:
                return await respond(send, 401, _said(UNAUTHORIZED, language), challenge=True)
            return await self._let_in(LOCAL, scope, receive, send)
        if access is None:
            reason = NEEDS_KEY if given is None else BAD_KEY
            return await respond(send, 401, _said(reason, language), challenge=True)
        refusal = self._refusal(access, scope, language)
        if refusal is not None:
            return await respond(send, 403, refusal)
        await self._let_in(access, _in_its_one_project(access, scope), receive, send)

    async def _let_in(self, access: Access, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app({**scope, GATED: access}, receive, send)

    def _refusal(self, access: Access, scope: Scope, language: str) -> str | None:
        """Why `access` may not make this request; None when it may."""
        say = translator("api", language).gettext
        right = needed_right(str(scope.get("method", "GET")).upper(), scope["path"])
        if not access.may(right):
            held = ", ".join(sorted(r.value for r in access.rights)) or "-"
            return say(LACKS_RIGHT).format(right=say(RIGHT_WORDS[right]), rights=held)
        if access.projects is None:
            return None
        projects = ", ".join(sorted(access.projects))
        named = [
            value
            for name in PROJECT_PARAMETERS
            for value in QueryParams(scope.get("query_string", b"")).getlist(name)
        ]
        several = len(access.projects) > 1
        if not named and several and scope["path"] in SPANNING_PATHS:
            return say(NAME_A_PROJECT).format(projects=projects)
        for value in named:
            try:
                stored = self.index.members.project(value)
            except (ValueError, OSError):  # no project: the endpoint's 422 if let in
                stored = ""
            if not access.sees(stored):
                return say(OUTSIDE_PROJECTS).format(projects=projects)
        return None


def _in_its_one_project(access: Access, scope: Scope) -> Scope:
    """A request of a key limited to one project that could span every project, narrowed to
    that project (the page and an agent need not name it)."""
    if access.projects is None or len(access.projects) != 1 or scope["path"] not in SPANNING_PATHS:
        return scope
    query = QueryParams(scope.get("query_string", b""))
    if any(name in query for name in PROJECT_PARAMETERS):
        return scope
    (project,) = access.projects
    narrowed = urlencode([*query.multi_items(), ("project", project)]).encode("latin-1")
    return {**scope, "query_string": narrowed}


def refused_project(access: Access, language: str) -> str:
    """The 403 reason of an endpoint that found a project outside the key's."""
    say = translator("api", language).gettext
    return say(OUTSIDE_PROJECTS).format(projects=", ".join(sorted(access.projects or ())))


def _said(message: str, language: str) -> str:
    return translator("api", language).gettext(message)


async def respond(send: Send, status: int, detail: str, challenge: bool = False) -> None:
    """`status` in the service's error shape. `Connection: close`: the body it did not read is
    not waited for."""
    body = json.dumps({"detail": detail}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if challenge:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

"""The HTTP service: record, search and forget turns as JSON.

`create_app(index)` is the whole service; `router(index)` is the same endpoints for a host app to
mount. A body is read at most `MAX_BODY_BYTES` deep before it is parsed; every index failure is a
503 with a reason, never a 500; validation errors never echo the input back.
"""

import hmac
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.exc import SQLAlchemyError
from starlette.convertors import PathConvertor, register_url_convertor
from starlette.types import Message, Receive

from history.api import views
from history.api.models import (
    MAX_BODY_BYTES,
    ErrorOut,
    ForgetProjectOut,
    ForgetSessionOut,
    HealthOut,
    Id,
    RecordOut,
    SearchOut,
    TurnIn,
    Workspace,
    hit_out,
)
from history.index import HistoryIndex
from history.prepare import MAX_DAYS
from history.query import terms
from history.tools.recall_history import MAX_K

log = logging.getLogger(__name__)

MAX_QUERY, MAX_ERRORS = 10_000, 20
NO_WORDS = "the query has no word to search for (common words like 'the' are ignored)"
TOO_LARGE = f"the body is over {MAX_BODY_BYTES} bytes"
UNAVAILABLE = "the history could not be read or written right now; try again later"
UNAUTHORIZED = "this service needs an `Authorization: Bearer <token>` header with its token"
Responses = dict[int | str, dict[str, Any]]


class _AnyText(PathConvertor):
    """Like `path`, newlines included: a session id recorded with one can still be forgotten."""

    regex = r"[\s\S]*"


register_url_convertor("recall_id", _AnyText())


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


class _BoundedRoute(APIRoute):
    """Reads the body before FastAPI parses it: 413 once Content-Length or the bytes actually
    streamed pass `MAX_BODY_BYTES`, 422 for a body that is not UTF-8; an index that cannot be
    read or written is a 503 with a reason (logged by exception type, never with turn text)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def bounded(request: Request) -> Response:
            # Eight digits are enough to tell: a longer number is over the limit too.
            declared = request.headers.get("content-length", "").lstrip("0")
            if declared.isascii() and declared.isdigit() and int(declared[:8]) > MAX_BODY_BYTES:
                raise HTTPException(413, TOO_LARGE)
            received = bytearray()
            async for chunk in request.stream():
                received += chunk
                if len(received) > MAX_BODY_BYTES:
                    raise HTTPException(413, TOO_LARGE)
            body = bytes(received)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError:
                error = {"type": "json_invalid", "loc": ("body",), "msg": "the body is not UTF-8"}
                raise RequestValidationError([error]) from None
            try:
                return await handle(Request(request.scope, _replay(body, request.receive)))
            except (SQLAlchemyError, OSError) as exc:
                log.warning("%s %s failed: %s", request.method, self.path, type(exc).__name__)
                raise HTTPException(503, UNAVAILABLE) from exc

        return bounded


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()  # a disconnect, from here on
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _guard(token: str) -> Callable[[HTTPAuthorizationCredentials | None], None]:
    expected = token.encode("utf-8")

    def check(
        credentials: Annotated[
            HTTPAuthorizationCredentials | None, Depends(HTTPBearer(auto_error=False))
        ],
    ) -> None:
        given = credentials.credentials.encode("latin-1", "replace") if credentials else b""
        if not hmac.compare_digest(given, expected):
            raise HTTPException(401, UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})

    return check


def router(index: HistoryIndex, token: str | None = None) -> APIRouter:
    """The endpoints, for a host app's `include_router`. With `token`, all but `/healthz`
    require `Authorization: Bearer <token>`. A host that does not want FastAPI's 422 bodies to
    echo the input installs `validation_error_handler` for `RequestValidationError`."""
    if token is not None and not token:
        raise ValueError("an empty token guards nothing: pass None or a secret")
    down: Responses = {503: _error("the index could not be read or written")}
    api = APIRouter(route_class=_BoundedRoute, responses=down)
    guarded = APIRouter(
        route_class=_BoundedRoute,
        dependencies=[Depends(_guard(token))] if token else [],
        responses={401: _error("missing or wrong bearer token")} if token else {},
    )

    @guarded.post(
        "/api/code/turns",
        status_code=201,
        response_model=RecordOut,
        responses={413: _error(TOO_LARGE)},
        summary="Record a finished turn (replacing one with the same turn_id)",
    )
    def record(turn: TurnIn) -> RecordOut:
        if not index.record(**turn.model_dump()):
            raise HTTPException(503, "the turn could not be written (logged by turn id); go on")
        return RecordOut(ok=True, turn_id=turn.turn_id)

    @guarded.get("/api/code/history", response_model=SearchOut, summary="Search, best first")
    def search(
        q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY, description="words")],
        project: Annotated[Workspace | None, Query(description="omit: every project")] = None,
        days: Annotated[int | None, Query(ge=1, le=MAX_DAYS, description="last N days")] = None,
        k: Annotated[int, Query(ge=1, le=MAX_K, description="how many hits")] = 5,
    ) -> SearchOut:
        if not (words := terms(q)):
            return SearchOut(terms=[], hits=[], message=NO_WORDS)
        hits = [hit_out(hit, words) for hit in index.search(q, project, days, k)]
        return SearchOut(terms=words, hits=hits, message=None if hits else "no turn matches")

    @guarded.delete(
        "/api/code/sessions/{session_id:recall_id}",
        response_model=ForgetSessionOut,
        responses={404: {"model": ForgetSessionOut, "description": "nothing recorded for it"}},
        summary="Forget every turn of one conversation",
    )
    def forget_session(session_id: Annotated[Id, PathParam()], out: Response) -> ForgetSessionOut:
        forgotten = index.forget_session(session_id)
        out.status_code = 200 if forgotten else 404
        return ForgetSessionOut(ok=bool(forgotten), forgotten=forgotten)

    @guarded.delete(
        "/api/code/projects", response_model=ForgetProjectOut, summary="Forget a project's turns"
    )
    def forget_project(
        workspace: Annotated[Workspace, Query(description="absolute workspace path")],
    ) -> ForgetProjectOut:
        sessions = len(index.session_ids(workspace))
        return ForgetProjectOut(deleted=sessions, forgotten=index.forget_project(workspace))

    @api.get("/healthz", response_model=HealthOut, summary="Liveness, backend and size")
    def healthz() -> HealthOut:
        return HealthOut(ok=True, full_text=index.full_text, turns=index.count())

    guarded.include_router(views.router(index, _BoundedRoute))
    api.include_router(guarded, responses=down)
    return api


def _clip(item: object, width: int = 120) -> str:
    return str(item)[:width].encode("utf-8", "replace").decode("utf-8")


async def validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 shape (loc, msg, type) without `input` or `ctx`: never echo the body."""
    reasons = []
    for error in exc.errors()[:MAX_ERRORS] if isinstance(exc, RequestValidationError) else []:
        msg, ctx = str(error.get("msg", "invalid")), error.get("ctx") or {}
        if error.get("type") == "json_invalid" and isinstance(ctx.get("error"), str):
            msg = f"{msg}: {ctx['error']}"
        loc = [part if isinstance(part, int) else _clip(part) for part in error.get("loc", ())]
        reasons.append({"loc": loc, "msg": _clip(msg, 300), "type": _clip(error.get("type"))})
    return JSONResponse({"detail": reasons}, status_code=422)


def create_app(
    index: HistoryIndex, token: str | None = None, cors_origins: Sequence[str] = ()
) -> FastAPI:
    """The service over `index`. No CORS unless `cors_origins` names the allowed origins."""
    app = FastAPI(title="recall-history", version="1", summary="Search and forget agent turns.")
    app.include_router(router(index, token))
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    origins = [cors_origins] if isinstance(cors_origins, str) else list(cors_origins)
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    return app

"""The HTTP service: record, search and forget turns as JSON, and its docs, served offline.

`create_app(index)` is the whole service; `router(index)` is the same endpoints for a host app to
mount. Every endpoint runs the checks of `limits.py` before FastAPI parses anything. Every error
answers `{"detail": ...}`: a sentence, or for 422 a list of `{loc, msg, type}` that never echoes
the input back. An unknown conversation or project is a 404 with a `detail` for both deletes.
"""

import logging
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer
from fastapi_offline import FastAPIOffline
from starlette.convertors import PathConvertor, register_url_convertor

from history.api import admin, files, views
from history.api.access_log import AccessLog
from history.api.keys import KeyGate, access_of, refused_project
from history.api.languages import http_error, language_of, say_language, translated
from history.api.limits import NOT_JSON, TOO_LARGE, bounded_route
from history.api.models import (
    ErrorOut,
    ForgetOut,
    HealthOut,
    Id,
    RecordOut,
    SearchOut,
    TurnIn,
    Workspace,
    hit_out,
)
from history.api.origin_guard import OriginGuard
from history.domain import READ_ONLY
from history.i18n import N_
from history.index import HistoryIndex
from history.limits import MAX_DAYS, MAX_K, MAX_QUERY_CHARS
from history.query import MAX_QUERY_WORDS, dropped_words, terms
from history.version import package_version
from history.web import page

log = logging.getLogger(__name__)

MAX_ERRORS = 20
NO_WORDS = N_("the query has no word to search for (common words like 'the' are ignored)")
NO_MATCH = N_("no turn matches")
NOT_RECORDED = N_("nothing is recorded for this conversation")
ALREADY_FORGOTTEN = N_("this conversation was already forgotten")
NO_PROJECT = N_("nothing is recorded for this project (or it was already forgotten)")
NOT_WRITTEN = N_("the turn could not be written (logged by turn id); go on")
Responses = dict[int | str, dict[str, Any]]


class _AnyText(PathConvertor):
    """Like `path`, newlines included: a session id recorded with one can still be forgotten."""

    regex = r"[\s\S]*"


register_url_convertor("recall_id", _AnyText())


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


def router(index: HistoryIndex, token: str | None = None) -> APIRouter:
    """The endpoints, for a host app's `include_router`. With `token`, all but `/healthz`
    require `Authorization: Bearer <token>`, checked before the body is read. A host that does
    not want FastAPI's 422 bodies to echo the input installs `validation_error_handler` for
    `RequestValidationError`; one that listens on loopback adds `origin_guard.OriginGuard`."""
    if token is not None and not token:
        raise ValueError("an empty token guards nothing: pass None or a secret")
    down: Responses = {503: _error("the index could not be read or written")}
    api = APIRouter(route_class=bounded_route(None), responses=down)
    guarded = APIRouter(
        route_class=bounded_route(token),
        # Checked by the route class; declared here so the schema shows the bearer scheme.
        dependencies=[Depends(HTTPBearer(auto_error=False))] if token else [],
        # Declared with or without the token: a member's key may be added at any time.
        responses={
            401: _error("missing or wrong bearer token or member's key"),
            403: _error("a right or a project the member's key lacks"),
        },
    )
    _record_route(guarded, index)
    _search_route(guarded, index)
    _forget_routes(guarded, index)

    @api.get("/healthz", response_model=HealthOut, summary="Liveness, backend and size")
    def healthz() -> HealthOut:
        return HealthOut(ok=True, full_text=index.full_text, turns=index.count())

    guarded.include_router(views.router(index, bounded_route(token)))
    guarded.include_router(files.router(index, bounded_route(token)))
    guarded.include_router(admin.router(index, bounded_route(token)))
    api.include_router(guarded, responses=down)
    return api


def _record_route(guarded: APIRouter, index: HistoryIndex) -> None:
    @guarded.post(
        "/api/code/turns",
        status_code=201,
        response_model=RecordOut,
        responses={413: _error(TOO_LARGE), 415: _error(NOT_JSON)},
        summary="Record a finished turn (replacing one with the same turn_id)",
    )
    def record(turn: TurnIn, request: Request) -> RecordOut:
        fields = turn.model_dump()
        access = access_of(request)
        if access.projects is not None and not access.sees(
            index.members.project(fields["project"])
        ):
            raise HTTPException(403, refused_project(access, language_of(request.headers)))
        outcome = index.record_outcome(**fields)
        if outcome is None:
            if not index.writable:
                raise HTTPException(503, READ_ONLY)
            raise HTTPException(503, NOT_WRITTEN)
        return RecordOut(ok=True, turn_id=fields["turn_id"], outcome=outcome)


def _search_route(guarded: APIRouter, index: HistoryIndex) -> None:
    @guarded.get("/api/code/history", response_model=SearchOut, summary="Search, best first")
    def search(
        request: Request,
        response: Response,
        q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_CHARS, description="words")],
        project: Annotated[Workspace | None, Query(description="omit: every project")] = None,
        days: Annotated[int | None, Query(ge=1, le=MAX_DAYS, description="last N days")] = None,
        k: Annotated[int, Query(ge=1, le=MAX_K, description="how many hits")] = 5,
        words_only: Annotated[
            bool | None,
            Query(description="rank by the words alone (omit: the service's default)"),
        ] = None,
    ) -> SearchOut:
        language = language_of(request.headers)
        say_language(response, language)
        if not (words := terms(q)):
            return SearchOut(terms=[], hits=[], message=translated(NO_WORDS, language))
        found = index.search(q, project, days, k, None if words_only is None else not words_only)
        hits = [hit_out(hit, words) for hit in found]
        message = None if hits else translated(NO_MATCH, language)
        dropped = dropped_words(q) if len(words) == MAX_QUERY_WORDS else 0
        return SearchOut(
            terms=words,
            words_dropped=dropped,
            hits=hits,
            message=message,
            approximate=found.approximate,
            partial=found.partial,
            by_meaning=[hit.turn_id for hit in found if hit.turn_id in found.by_meaning],
        )


def _forget_routes(guarded: APIRouter, index: HistoryIndex) -> None:
    @guarded.delete(
        "/api/code/sessions/{session_id:recall_id}",
        response_model=ForgetOut,
        response_model_exclude_none=True,
        responses={404: _error("nothing recorded for it, or already forgotten")},
        summary="Forget every turn of one conversation",
    )
    def forget_session(session_id: Annotated[Id, PathParam()], request: Request) -> ForgetOut:
        access = access_of(request)
        if access.projects is not None:
            held = {turn.project for turn in index.conversation(session_id, None, 0)}
            if not any(access.sees(project) for project in held):
                # Not there for it; and no tombstone left in another project's name.
                raise HTTPException(404, NOT_RECORDED)
            if not all(access.sees(project) for project in held):
                raise HTTPException(403, refused_project(access, language_of(request.headers)))
        already = bool(index.forgotten([session_id]))
        # Even at 0: a tombstone against imports.
        forgotten = index.forget_session(session_id, by=access.actor)
        if not forgotten:
            raise HTTPException(404, ALREADY_FORGOTTEN if already else NOT_RECORDED)
        return ForgetOut(
            ok=True, deleted=1, forgotten=forgotten, damaged_copies=_copies_kept(index)
        )

    @guarded.delete(
        "/api/code/projects",
        response_model=ForgetOut,
        response_model_exclude_none=True,
        responses={404: _error("nothing recorded for it, or already forgotten")},
        summary="Forget every conversation of a project",
    )
    def forget_project(
        request: Request,
        project: Annotated[
            Workspace,
            Query(description="absolute workspace path (its former name `workspace` still works)"),
        ],
    ) -> ForgetOut:
        sessions = len(index.session_ids(project))
        forgotten = index.forget_project(project, by=access_of(request).actor)
        if not forgotten:
            raise HTTPException(404, NO_PROJECT)
        return ForgetOut(
            ok=True,
            deleted=sessions,
            forgotten=forgotten,
            damaged_copies=_copies_kept(index),
        )


def _copies_kept(index: HistoryIndex) -> int | None:
    """How many damaged copies of the file sit in the home (they may still hold what was just
    forgotten); None when none do."""
    return len(index.about().damaged_copies) or None


def _clip(item: object, width: int = 120) -> str:
    return str(item)[:width].encode("utf-8", "replace").decode("utf-8")


async def validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 shape (loc, msg, type) without `input` or `ctx`: never echo the body. Our
    own reasons in the request's language; the validator's stay as it words them."""
    language = language_of(request.headers)
    reasons = []
    for error in exc.errors()[:MAX_ERRORS] if isinstance(exc, RequestValidationError) else []:
        msg, ctx = translated(str(error.get("msg", "invalid")), language), error.get("ctx") or {}
        if error.get("type") == "json_invalid" and isinstance(ctx.get("error"), str):
            msg = f"{msg}: {ctx['error']}"
        loc = [part if isinstance(part, int) else _clip(part) for part in error.get("loc", ())]
        reasons.append({"loc": loc, "msg": _clip(msg, 300), "type": _clip(error.get("type"))})
    response = JSONResponse({"detail": reasons}, status_code=422)
    say_language(response, language)
    return response


def create_app(
    index: HistoryIndex,
    token: str | None = None,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = (),
) -> FastAPI:
    """The service over `index`, its page at / and its docs at /docs and /redoc (their assets
    served from here: no page refers to another address). With `token`, everything but
    `/healthz` and the page needs it, the docs and the schema included. No CORS unless
    `cors_origins` names the allowed origins. Whatever the token, only requests addressed to
    127.0.0.1, localhost, [::1], the address a connection arrived on or one of `allowed_hosts`
    are answered, and a change is refused to a page of another origin (origin_guard.py)."""
    if token is not None and not token:
        raise ValueError("an empty token guards nothing: pass None or a secret")
    app = FastAPIOffline(
        title="recall-history",
        version=package_version(),
        summary="Search and forget agent turns.",
        swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from swagger.io
    )
    app.include_router(router(index, token))
    app.include_router(page.router())
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(HTTPException, http_error)
    # The token, members' keys once the database holds one, or open (history/api/keys.py).
    app.add_middleware(KeyGate, index=index, token=token)
    origins = [cors_origins] if isinstance(cors_origins, str) else list(cors_origins)
    if origins:  # outside the gate: a browser's preflight carries no token
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    # Outside CORS and the token: a rebound name is refused before anything else is looked at.
    hosts = [allowed_hosts] if isinstance(allowed_hosts, str) else list(allowed_hosts)
    app.add_middleware(OriginGuard, allowed_hosts=hosts, cors_origins=origins)
    app.add_middleware(AccessLog)
    return app

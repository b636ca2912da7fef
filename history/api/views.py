"""The HTTP views: a turn, a conversation, the lists of conversations and projects, as JSON.

`router(index, route_class)` is included by `history.api.app.router`, which guards it with the
same token and turns an index failure into the same 503 through `route_class`.
"""

from dataclasses import asdict
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from history import paging
from history.access import Access
from history.api.keys import access_of
from history.api.languages import language_of, say_language, translated
from history.api.models import ErrorOut, Id, TurnOut, Workspace
from history.domain import ConversationSummary, ProjectSummary
from history.i18n import N_
from history.index import COUNTED_CANDIDATES, AmbiguousTurnId, HistoryIndex
from history.limits import MAX_DAYS
from history.paging import BAD_CURSOR

NO_TURN = N_("no turn has this id (it may have been forgotten)")
NOT_UNIQUE = N_(
    "more than one turn id starts with this: pass more of the one you mean (`candidates` "
    "names the first of them)"
)
NO_CONVERSATION = N_("no conversation has this id (it may have been forgotten)")
NOT_IN_CONVERSATION = N_("this conversation holds no turn with the `around` id")
MAX_RADIUS, MAX_LIMIT, MAX_CURSOR = 10_000, 200, 10_000


class AmbiguousOut(BaseModel):
    detail: str
    candidates: list[str] = Field(description="the first of the turn ids it starts, in order")
    count: int = Field(
        description=f"how many turn ids it starts, counted up to {COUNTED_CANDIDATES + 1}"
    )
    counted: bool = Field(description=f"false: more than {COUNTED_CANDIDATES} ids, not counted")


class ConversationOut(BaseModel):
    session_id: str
    turns: list[TurnOut] = Field(description="oldest first")


class ConversationSummaryOut(BaseModel):
    session_id: str
    project: str
    first_asked: str = Field(description="the start of its first question")
    first_asked_at: datetime
    last_asked_at: datetime
    turns: int
    tainted_turns: int = Field(description="turns that read untrusted content")
    edited: list[str] = Field(description="the files it edited most, the most edited first")
    cursor: str = Field(description="as `before`: the conversations after this one")


class ConversationsOut(BaseModel):
    sessions: list[ConversationSummaryOut] = Field(description="the latest turn first")
    next: str | None = Field(description="`before` for the next page; null on the last page")


class ProjectOut(BaseModel):
    project: str
    turns: int
    conversations: int
    first_asked_at: datetime
    last_asked_at: datetime


class RetentionOut(BaseModel):
    project: str | None = Field(description="null: every project without a setting of its own")
    days: int = Field(description="turns older than this are forgotten by the upkeep")


class ProjectsOut(BaseModel):
    projects: list[ProjectOut] = Field(description="the one with the latest turn first")
    retention: list[RetentionOut] = Field(
        default_factory=list, description="the retention settings (none: kept until forgotten)"
    )


def _summary_out(summary: ConversationSummary) -> ConversationSummaryOut:
    return ConversationSummaryOut(**asdict(summary), cursor=summary.cursor)


def _project_out(summary: ProjectSummary) -> ProjectOut:
    return ProjectOut(**asdict(summary))


def _not_found(description: str) -> dict[int | str, dict[str, Any]]:
    return {404: {"model": ErrorOut, "description": description}}


def router(index: HistoryIndex, route_class: type[APIRoute] = APIRoute) -> APIRouter:
    views = APIRouter(route_class=route_class)

    @views.get(
        "/api/code/turns/{turn_id:recall_id}",
        response_model=TurnOut,
        responses={
            **_not_found(NO_TURN),
            409: {"model": AmbiguousOut, "description": "the start of more than one turn id"},
        },
        summary="A turn in full, by its id or the start of it (8 characters or more)",
    )
    def read_turn(turn_id: Annotated[Id, PathParam()], request: Request) -> Any:
        access = access_of(request)
        try:
            turn = index.turn(turn_id, prefix=True)
        except AmbiguousTurnId as several:
            seen = _seen_candidates(index, access, several)
            if len(seen.candidates) > 1:
                return _ambiguous(seen, request)
            turn = index.turn(seen.candidates[0]) if seen.candidates else None
        # A turn of a project the key may not see is, for it, not there.
        if turn is None or not access.sees(turn.project):
            raise HTTPException(404, NO_TURN)
        return TurnOut(**asdict(turn))

    @views.get(
        "/api/code/sessions/{session_id:recall_id}",
        response_model=ConversationOut,
        responses=_not_found(f"{NO_CONVERSATION}, or {NOT_IN_CONVERSATION}"),
        summary="A conversation's turns in order, or those around one of them",
    )
    def read_conversation(
        request: Request,
        session_id: Annotated[Id, PathParam()],
        around: Annotated[Id | None, Query(description="a turn id: only the turns near it")] = None,
        radius: Annotated[
            int, Query(ge=0, le=MAX_RADIUS, description="with `around`: turns either side")
        ] = 2,
    ) -> ConversationOut:
        access = access_of(request)
        found = index.conversation(session_id, around, radius)
        turns = [turn for turn in found if access.sees(turn.project)]
        if not turns:
            missing = around is not None and index.conversation(session_id, None, 0)
            raise HTTPException(404, NOT_IN_CONVERSATION if missing else NO_CONVERSATION)
        return ConversationOut(
            session_id=session_id, turns=[TurnOut(**asdict(turn)) for turn in turns]
        )

    @views.get(
        "/api/code/sessions",
        response_model=ConversationsOut,
        summary="Conversations, the latest turn first, a page at a time",
    )
    def list_conversations(
        project: Annotated[Workspace | None, Query(description="omit: every project")] = None,
        days: Annotated[
            int | None, Query(ge=1, le=MAX_DAYS, description="with a turn in the last N days")
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="page size")] = 50,
        before: Annotated[
            str | None,
            Query(min_length=1, max_length=MAX_CURSOR, description="`next` of the last page"),
        ] = None,
    ) -> ConversationsOut:
        if before is not None:
            try:
                paging.decode(before)
            except ValueError:
                error = {"type": "value_error", "loc": ("query", "before"), "msg": BAD_CURSOR}
                raise RequestValidationError([error]) from None
        found = index.conversations(project, days, limit + 1, before)
        page = found[:limit]
        more = len(found) > limit
        return ConversationsOut(
            sessions=[_summary_out(summary) for summary in page],
            next=page[-1].cursor if more else None,
        )

    @views.get("/api/code/projects", response_model=ProjectsOut, summary="Every project")
    def list_projects(request: Request) -> ProjectsOut:
        access = access_of(request)
        seen = [summary for summary in index.projects() if access.sees(summary.project)]
        kept = index.retention().keep_days  # '' is every project's setting
        return ProjectsOut(
            projects=[_project_out(summary) for summary in seen],
            retention=[
                RetentionOut(project=project, days=days)
                for project, days in kept.items()
                if not project or access.sees(project)
            ],
        )

    return views


def _seen_candidates(
    index: HistoryIndex, access: Access, several: AmbiguousTurnId
) -> AmbiguousTurnId:
    """The ids a prefix starts that a key limited to projects may know of: the turns of other
    projects are not there for it (a prefix they alone shared opens its one turn)."""
    if access.projects is None:
        return several
    seen = [one for one in several.candidates if _sees_turn(index, access, one)]
    return AmbiguousTurnId(several.prefix, seen, len(seen))


def _sees_turn(index: HistoryIndex, access: Access, turn_id: str) -> bool:
    turn = index.turn(turn_id)
    return turn is not None and access.sees(turn.project)


def _ambiguous(several: AmbiguousTurnId, request: Request) -> JSONResponse:
    language = language_of(request.headers)
    ambiguous = AmbiguousOut(
        detail=translated(NOT_UNIQUE, language),
        candidates=several.candidates,
        count=several.count,
        counted=several.counted,
    )
    response = JSONResponse(ambiguous.model_dump(), status_code=409)
    say_language(response, language)
    return response

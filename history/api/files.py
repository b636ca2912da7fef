"""`GET /api/code/files`: the turns that edited a file, or the turn that wrote each of its lines,
as `recall blame --json` gives them (history/blame_json.py).

`router(index, route_class)` is included by `history.api.app.router`, guarded like the views.
"""

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from history import blame, blame_json
from history.api.languages import Detail
from history.api.models import MAX_PATH, ErrorOut, Workspace
from history.i18n import N_
from history.index import HistoryIndex
from history.limits import MAX_K

LINES = r"^[1-9][0-9]{0,8}(-[1-9][0-9]{0,8})?$"
RELATIVE_NEEDS_PROJECT = N_("a relative path needs `project`, the directory it is relative to")
BAD_RANGE = N_("`line` names no lines: FROM-TO ends before it starts")
UNREADABLE = N_("the file cannot be read ({reason})")
PAST_THE_END = N_("`line` starts past the end of the file")


class FileTurnOut(BaseModel):
    turn_id: str = Field(description="opens with GET /api/code/turns/{turn_id}")
    session_id: str
    project: str
    asked_at: str
    tainted: bool = Field(description="the turn read untrusted content")
    asked: str = Field(description="the question's first line")
    name: str = Field(description="the file's name as this turn recorded it")
    edited: bool = Field(description="false: the turn only read it")
    added: list[str] = Field(description="the lines its edits of the file added")
    removed: list[str] = Field(description="the lines they removed, where the agent's log says")


class LineOut(BaseModel):
    line: int
    text: str
    turn: FileTurnOut | None = Field(description="null: no recorded turn wrote this line")
    how: list[str] = Field(description="exact_text, same_commit or nearest_in_time")
    commit: str | None = Field(description="the commit git blame names, where there is one")
    committed_at: str | None


class FileOut(BaseModel):
    path: str = Field(description="relative to its project, as the turns record it")
    project: str | None = Field(description="the longest project holding the file")
    names: list[str] = Field(description="its name, then (follow) those it had before")
    removed_lines_recorded: bool = Field(
        description="true: a turn's work holds the lines its edits removed where the agent's log "
        "says; false: added lines only"
    )
    turns: list[FileTurnOut] | None = Field(default=None, description="newest first")
    lines: list[LineOut] | None = Field(default=None, description="with `line`")


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


def router(index: HistoryIndex, route_class: type[APIRoute]) -> APIRouter:
    files = APIRouter(route_class=route_class)

    @files.get(
        "/api/code/files",
        response_model=FileOut,
        responses={
            400: _error(f"{RELATIVE_NEEDS_PROJECT}, or {BAD_RANGE}"),
            404: _error(UNREADABLE),
        },
        summary="The turns that edited a file, newest first, or who wrote each of its lines",
    )
    def blame_file(
        path: Annotated[
            str,
            Query(min_length=1, max_length=MAX_PATH, pattern=r"^[^\x00]*$", description="a file"),
        ],
        project: Annotated[Workspace | None, Query(description="for a relative path")] = None,
        line: Annotated[str | None, Query(pattern=LINES, description="LINE or FROM-TO")] = None,
        k: Annotated[int, Query(ge=1, le=MAX_K, description="how many turns")] = 5,
        read: Annotated[bool, Query(description="also the turns that only read it")] = False,
        follow: Annotated[bool, Query(description="also its names before a git rename")] = False,
    ) -> dict[str, Any]:
        if not path.startswith(("/", "~")) and project is None:
            raise HTTPException(400, RELATIVE_NEEDS_PROJECT)
        span = None
        if line is not None:
            first, _, last = line.partition("-")
            span = (int(first), int(last or first))
            if span[1] < span[0]:
                raise HTTPException(400, BAD_RANGE)
        target = blame.find(index, path, project or "/", follow=follow)
        turns = blame.file_turns(index, target, read=read and span is None)
        if span is None:
            return blame_json.turns(target, turns[:k])
        try:
            lines = blame.current_lines(target, *span)
        except OSError as error:
            reason = error.strerror or type(error).__name__
            raise HTTPException(404, Detail(UNREADABLE, reason=reason)) from None
        except blame.PastTheEnd:
            raise HTTPException(400, PAST_THE_END) from None
        return blame_json.lines(target, blame.line_origins(target, turns, lines, span[0], follow))

    return files

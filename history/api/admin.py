"""`GET /api/admin/audit`: the audit trail (what was forgotten, expired, added or revoked, when
and by which key), for a key with the `admin` right. Never a turn's text: the table has none.

`router(index, route_class)` is included by `history.api.app.router`, guarded like the views.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from history.access import PERIOD_PATTERN, AuditEvent, parse_period
from history.i18n import N_
from history.index import HistoryIndex

BAD_AGE = N_("`since` is a number and a unit: 30m, 12h or 7d")


class AuditEventOut(BaseModel):
    at: datetime
    actor: str = Field(description="the key's name; `token`, `local` or `retention settings`")
    action: str = Field(
        description="forget-session, forget-project, retention, key-added or key-revoked"
    )
    session_id: str | None
    project: str | None
    turns: int | None = Field(description="how many turns it forgot")
    key_name: str | None = Field(description="the key a key event was about")


class AuditOut(BaseModel):
    events: list[AuditEventOut] = Field(description="oldest first")


def event_out(event: AuditEvent) -> AuditEventOut:
    return AuditEventOut.model_validate(event.fields())


def router(index: HistoryIndex, route_class: type[APIRoute] = APIRoute) -> APIRouter:
    admin = APIRouter(route_class=route_class)

    @admin.get("/api/admin/audit", response_model=AuditOut, summary="The audit trail")
    def audit(
        since: Annotated[
            str | None,
            Query(max_length=12, pattern=PERIOD_PATTERN, description="only the last 30m, 12h, 7d…"),
        ] = None,
    ) -> AuditOut:
        start = None
        if since is not None:
            try:
                start = datetime.now(UTC) - parse_period(since)
            except ValueError:
                error = {"type": "value_error", "loc": ("query", "since"), "msg": BAD_AGE}
                raise RequestValidationError([error]) from None
        return AuditOut(events=[event_out(event) for event in index.members.events(start)])

    return admin

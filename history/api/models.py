"""The HTTP service's request and response bodies, and the checks on what a client sends.

Every text field must be valid Unicode, paths must not hold NUL, and a naive `asked_at` is taken
as server-local time, as `HistoryIndex.record` takes it.
"""

import dataclasses
import re
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool
from pydantic_core import PydanticUndefined

from history.domain import Hit, RecordOutcome, Turn, turn_field_type
from history.limits import MAX_PATHS, MAX_WORK_CHARS
from history.query import excerpt
from history.tools.text import ANSWERED_MAX, ASKED_MAX

MAX_BODY_BYTES = 2 * 1024 * 1024  # no text field can be longer than the body api.py reads
MAX_ID, MAX_PATH = 1_000, 4_096


def _text(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return value


def _iso_date_time(value: object) -> object:
    # Pydantic would also take numbers and "0" as Unix times; the schema says date-time.
    if value is not None and not (isinstance(value, str) and ISO_DATE_TIME.match(value)):
        raise ValueError("asked_at must be an ISO 8601 date-time, e.g. 2026-12-03T10:15:00Z")
    return value


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    try:  # a naive time is local, as `record` takes it
        return (value if value.tzinfo else value.astimezone()).astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        raise ValueError("asked_at is out of range") from None


NO_NUL = r"^[^\x00]*$"
ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")
WORKSPACE = r"^(~|~/[^\x00]*|/[^\x00]*)$"  # absolute, or under the server user's home

Id = Annotated[str, Field(min_length=1, max_length=MAX_ID, pattern=NO_NUL), AfterValidator(_text)]
Workspace = Annotated[
    str,
    Field(min_length=1, max_length=MAX_PATH, pattern=WORKSPACE, examples=["/home/me/shop"]),
    AfterValidator(_text),
]
Long = Annotated[str, Field(max_length=MAX_BODY_BYTES), AfterValidator(_text)]
Names = Annotated[
    list[Annotated[str, Field(max_length=MAX_PATH, pattern=NO_NUL), AfterValidator(_text)]],
    Field(max_length=MAX_PATHS),
]


AskedAt = Annotated[datetime | None, BeforeValidator(_iso_date_time), AfterValidator(_utc)]
# What a client may send for a field of each of a turn's types, and its default when it sends
# none (a text without a default of its own is required).
_INPUT_BY_TYPE: dict[object, tuple[object, object]] = {
    str: (Long, PydanticUndefined),
    tuple[str, ...]: (Names, []),
    bool: (StrictBool, False),
    datetime: (AskedAt, None),
}
# Fields a client sends narrower than their type allows.
_NARROWER_INPUT: dict[str, object] = {"turn_id": Id, "session_id": Id, "project": Workspace}
_INPUT_DESCRIPTIONS = {
    "project": "absolute workspace path, or ~/…",
    "tainted": "the turn read untrusted content",
    "asked_at": "ISO 8601; naive is server-local; default: as stored, or now",
    "work": "what the turn did, one entry a line: `$ command`, `! failure line`, "
    f"`~ path` then `+ added line`s (stored up to {MAX_WORK_CHARS:,} characters)",
}
_OUTPUT_DESCRIPTIONS = {"work": "what the turn did, one entry a line; empty when unknown"}


def _field_input(item: dataclasses.Field[Any]) -> object:
    kind, default = _INPUT_BY_TYPE[turn_field_type(item.name)]
    if item.default is not dataclasses.MISSING:
        default = item.default
    described = _INPUT_DESCRIPTIONS.get(item.name)
    return Annotated[
        _NARROWER_INPUT.get(item.name, kind), Field(default=default, description=described)
    ]


def _field_output(item: dataclasses.Field[Any]) -> object:
    described = _OUTPUT_DESCRIPTIONS.get(item.name)
    return Annotated[turn_field_type(item.name), Field(description=described)]


class TurnIn(BaseModel):
    """One finished turn, as `HistoryIndex.record` takes it."""

    model_config = ConfigDict(extra="forbid")
    # A turn's fields (history.domain.Turn), each as a client may send it.
    __annotations__ = {item.name: _field_input(item) for item in dataclasses.fields(Turn)}


class RecordOut(BaseModel):
    ok: bool
    turn_id: str
    outcome: RecordOutcome = Field(
        description="new: a turn_id not seen before; updated: it replaced a different turn "
        "with this turn_id; unchanged: the same turn again (sent without asked_at, the stored "
        "time is kept), left as it was; spooled: a forget held the "
        "index, so the turn was kept beside it and is searchable within seconds"
    )


class TurnOut(BaseModel):
    """A stored turn, whole."""

    # A turn's fields (history.domain.Turn), each as the turn holds it.
    __annotations__ = {item.name: _field_output(item) for item in dataclasses.fields(Turn)}


class HitOut(TurnOut):
    score: float
    asked_excerpt: str
    answered_excerpt: str


def hit_out(hit: Hit, words: list[str]) -> HitOut:
    return HitOut(
        **asdict(hit),
        asked_excerpt=excerpt(hit.asked, words, ASKED_MAX),
        answered_excerpt=excerpt(hit.answered, words, ANSWERED_MAX),
    )


class SearchOut(BaseModel):
    terms: list[str] = Field(description="the words searched for, function words dropped")
    words_dropped: int = Field(
        default=0,
        description="how many more words the query held past the first ones searched "
        "(`terms`), left out",
    )
    hits: list[HitOut] = Field(description="best first")
    message: str | None = Field(None, description="why there are no hits, when there are none")
    approximate: bool = Field(
        default=False,
        description="the search was cut short (every word very common): the best of the newest "
        "matching turns, which may differ from the best of all",
    )
    partial: bool = Field(
        default=False,
        description="some turns were not read: a forget was rewriting the part of the database "
        "that holds them (PostgreSQL); the same search a little later reads them all",
    )
    by_meaning: list[str] = Field(
        default_factory=list,
        description="the turn ids of hits that search by meaning brought, not among the best "
        "matches of the words",
    )


class ForgetOut(BaseModel):
    """What a delete forgot (an unknown conversation or project is a 404 instead)."""

    ok: bool
    deleted: int = Field(description="conversations forgotten")
    forgotten: int = Field(description="turns forgotten")
    damaged_copies: int | None = Field(
        default=None,
        description="damaged copies of the history file kept beside it (history.db.corrupt-*) "
        "that may still hold what was forgotten: `recall doctor --delete-damaged` removes them; "
        "absent when there are none",
    )


class HealthOut(BaseModel):
    ok: bool
    full_text: bool
    turns: int


class ErrorOut(BaseModel):
    detail: str

"""What a turn becomes before it is stored: redacted, capped, de-duplicated, keyed by project.

Redaction runs first on the whole text (so a cut can never split a secret out of its mask's
reach); if it fails, the turn is not stored at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from history.domain import NewTurn
from history.projects import project_key
from history.redact import redact

# Longer text is cut before it is stored; excerpts never need more.
MAX_TEXT_CHARS = 64_000
MAX_PATHS = 1_000
MAX_PATH_CHARS = 1_000
# A century: further back than any turn, and still a datetime Python can subtract.
MAX_DAYS = 36_500


def _unique(items: Iterable[str], limit: int) -> tuple[str, ...]:
    """De-duplicated in first-seen order, redacted, capped: file and tool names."""
    seen: dict[str, None] = {}
    for item in items:
        clean = redact(str(item))[:MAX_PATH_CHARS]
        if clean:
            seen.setdefault(clean, None)
        if len(seen) == limit:
            break
    return tuple(seen)


def _cap(text: str) -> str:
    return redact(text)[:MAX_TEXT_CHARS]


def prepare(
    turn_id: str,
    session_id: str,
    project: str,
    asked: str,
    answered: str,
    files: Sequence[str],
    edited: Sequence[str],
    tools: Sequence[str],
    tainted: bool,
    asked_at: datetime | None,
) -> NewTurn:
    """Redacted, capped and de-duplicated; a naive `asked_at` is taken as local time."""
    when = asked_at or datetime.now(UTC)
    if when.tzinfo is None:
        when = when.astimezone()
    return NewTurn(
        turn_id=str(turn_id),
        session_id=str(session_id),
        project=project_key(project),
        asked_at=when.astimezone(UTC),
        tainted=bool(tainted),
        asked=_cap(asked),
        answered=_cap(answered),
        files=_unique([*files, *edited], MAX_PATHS),
        edited=_unique(edited, MAX_PATHS),
        tools=_unique(tools, MAX_PATHS),
    )


class TurnFields(Protocol):
    """What `record_many` reads of a turn (an importer's `ImportedTurn` has these)."""

    @property
    def turn_id(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def project(self) -> str: ...
    @property
    def asked(self) -> str: ...
    @property
    def answered(self) -> str: ...
    @property
    def files(self) -> Sequence[str]: ...
    @property
    def edited(self) -> Sequence[str]: ...
    @property
    def tools(self) -> Sequence[str]: ...
    @property
    def tainted(self) -> bool: ...
    @property
    def asked_at(self) -> datetime | None: ...


@dataclass(frozen=True)
class RecordCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    forgotten: int = 0  # turns of forgotten sessions, not brought back
    failed: int = 0

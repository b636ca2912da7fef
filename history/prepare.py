"""What a turn becomes before it is stored: redacted, capped, de-duplicated, keyed by project.

Every field is redacted, the ids and the project too (`IdMask`: an id that held a secret is
stored masked and tagged, the same way each time). Redaction runs before the cut, on the text
up to the cut and a margin past it wider than any secret a rule looks ahead for, so a cut never
splits a secret out of its mask's reach, and a megabyte pasted into a turn costs what 66,000
characters do. If redaction fails, the turn is not stored at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from history.domain import NewTurn
from history.redaction import redact
from history.redaction.ids import IdMask

# Longer text is cut before it is stored; excerpts never need more.
MAX_TEXT_CHARS = 64_000
# A turn's work (its commands, failures and added lines) is kept to its first part: what a
# search for an error or a command needs, a quarter of an answer's bound.
MAX_WORK_CHARS = 16_000
MAX_PATHS = 1_000
MAX_PATH_CHARS = 1_000
# Past the cut, the text a rule may still need to see a secret whole (a value is at most 500
# characters, a URL's password about 1,000).
REDACTION_MARGIN = 2_000


def _unique(items: Iterable[str], limit: int) -> tuple[str, ...]:
    """De-duplicated in first-seen order, redacted, capped: file and tool names."""
    seen: dict[str, None] = {}
    for item in items:
        clean = redact(str(item)[: MAX_PATH_CHARS + REDACTION_MARGIN])[:MAX_PATH_CHARS]
        if clean:
            seen.setdefault(clean, None)
        if len(seen) == limit:
            break
    return tuple(seen)


def _cap(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return redact(text[: limit + REDACTION_MARGIN])[:limit]


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
    ids: IdMask | None = None,
    work: str = "",
) -> NewTurn:
    """Redacted (`ids` masks the ids and the project), capped and de-duplicated; a naive
    `asked_at` is taken as local time."""
    ids = ids or IdMask()
    when = asked_at or datetime.now(UTC)
    if when.tzinfo is None:
        when = when.astimezone()
    return NewTurn(
        turn_id=ids.id(str(turn_id)),
        session_id=ids.id(str(session_id)),
        project=ids.project(project),
        asked_at=when.astimezone(UTC),
        tainted=bool(tainted),
        asked=_cap(asked),
        answered=_cap(answered),
        files=_unique([*files, *edited], MAX_PATHS),
        edited=_unique(edited, MAX_PATHS),
        tools=_unique(tools, MAX_PATHS),
        work=_cap(work, MAX_WORK_CHARS),
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

    # And `work: str` where it has one (an `ImportedTurn` does): a turn without is read as
    # having done nothing that was logged, as every caller's turns were before it.


def prepare_fields(item: TurnFields, ids: IdMask | None = None) -> NewTurn:
    """`prepare` for a turn given as one object (an import's or a generated turn)."""
    return prepare(
        item.turn_id,
        item.session_id,
        item.project,
        item.asked,
        item.answered,
        item.files,
        item.edited,
        item.tools,
        item.tainted,
        item.asked_at,
        ids,
        str(getattr(item, "work", "")),
    )


@dataclass(frozen=True)
class RecordCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    forgotten: int = 0  # turns of forgotten sessions, not brought back
    failed: int = 0

"""What a turn becomes before it is stored: redacted, capped, de-duplicated, keyed by project.

Every field is redacted, the ids and the project too (`IdMask`: an id that held a secret is
stored masked and tagged, the same way each time). Redaction runs before the cut, on the text
up to the cut and a margin past it wider than any secret a rule looks ahead for, so a cut never
splits a secret out of its mask's reach, and a megabyte pasted into a turn costs what 66,000
characters do. If redaction fails, the turn is not stored at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, Protocol

from history.domain import TURN_FIELDS, Turn, turn_field_type
from history.limits import MAX_PATH_CHARS, MAX_PATHS, MAX_TEXT_CHARS, MAX_WORK_CHARS
from history.redaction import redact
from history.redaction.ids import IdMask

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


def _utc(when: datetime) -> datetime:
    """A naive time is local time."""
    return (when if when.tzinfo else when.astimezone()).astimezone(UTC)


# How a field is made fit to store, by its type: text redacted and capped, names redacted,
# capped and de-duplicated. `prepare` cleans the fields in _NAMED its own way, every other field
# (a new one too) by its type's: a field of a type with no entry here stops this module loading.
_BY_TYPE: dict[object, Callable[[Any], Any]] = {
    str: _cap,
    tuple[str, ...]: lambda names: _unique(names, MAX_PATHS),
    bool: bool,
    datetime: _utc,
}
_NAMED = ("turn_id", "session_id", "project", "files", "work")
_BY_NAME = {name: _BY_TYPE[turn_field_type(name)] for name in TURN_FIELDS if name not in _NAMED}
_BY_NAME_VALUES = attrgetter(*_BY_NAME)


def prepare(turn: Turn, ids: IdMask | None = None) -> Turn:
    """The turn as it is stored: every field redacted (`ids` masks the ids and the project),
    capped and de-duplicated; a naive `asked_at` is taken as local time."""
    ids = ids or IdMask()
    cleaned = {
        name: clean(value)
        for (name, clean), value in zip(_BY_NAME.items(), _BY_NAME_VALUES(turn), strict=True)
    }
    return Turn(
        turn_id=ids.id(str(turn.turn_id)),
        session_id=ids.id(str(turn.session_id)),
        project=ids.project(turn.project),
        files=_unique([*turn.files, *turn.edited], MAX_PATHS),  # an edited file was touched
        work=_cap(turn.work, MAX_WORK_CHARS),
        **cleaned,
    )


class TurnFields(Protocol):
    """A turn as `record_many` takes it: a `Turn` (what an importer reads), or any object with
    a turn's fields as attributes (TURN_FIELDS); one without a field that has a default (`work`)
    takes the default, and an `asked_at` of None is now."""

    @property
    def turn_id(self) -> str: ...


def as_turn(item: TurnFields) -> Turn:
    """`item` as the Turn it holds the fields of."""
    if isinstance(item, Turn):
        return item
    values = {name: getattr(item, name) for name in TURN_FIELDS if hasattr(item, name)}
    values["asked_at"] = values.get("asked_at") or datetime.now(UTC)
    return Turn(**values)


@dataclass(frozen=True)
class RecordCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    forgotten: int = 0  # turns of forgotten sessions, not brought back
    failed: int = 0

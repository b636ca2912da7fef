"""What the index stores and what its searches and views return, free of any database."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Literal, get_type_hints

from history import paging
from history.i18n import N_

# What recording a turn did: a turn_id not seen before, a different turn under a known one, the
# same turn again (left as it was), or kept beside the index while a forget held it (moved in
# within seconds; whether it was new is known then).
RecordOutcome = Literal["new", "updated", "unchanged", "spooled"]


READ_ONLY = N_(
    "the history database is read-only for this process (its file, folder or disk): "
    "searching works, recording and forgetting do not"
)


class ReadOnlyHistory(PermissionError):
    """A write (a forget) asked of an index this process may only read."""

    def __init__(self) -> None:
        super().__init__(READ_ONLY)


@dataclass(frozen=True)
class Turn:
    """A turn, the one shape every layer shares: what an importer reads, what `prepare` makes of
    it to store (redacted, capped, de-duplicated, its project a key), a stored row, a spooled
    turn, a view's turn and the HTTP body are each this, or are built from its fields
    (TURN_FIELDS). A new field is added here; the layers follow."""

    turn_id: str
    session_id: str
    project: str
    asked_at: datetime
    tainted: bool
    asked: str
    answered: str
    files: tuple[str, ...]
    edited: tuple[str, ...]
    tools: tuple[str, ...]
    # What the turn did (history/importers/whole.py): one entry a line, `$ command`, `! failure`,
    # `~ path` then its `+ added line`s. Keyword-only, so `Hit` may add its score after it.
    work: str = field(default="", kw_only=True)


# What `prepare` makes and a repository stores is a turn like any read back.
NewTurn = Turn

# A turn's fields, in order: what each layer (the rows, the views, the spool, the HTTP models,
# `prepare`) reads and writes.
TURN_FIELDS: tuple[str, ...] = tuple(item.name for item in fields(Turn))
_FIELD_TYPES = get_type_hints(Turn)


def turn_fields_of_type(kind: object) -> frozenset[str]:
    """The names of the turn's fields of type `kind` (`tuple[str, ...]`: the lists of names,
    which a row stores as JSON text)."""
    return frozenset(name for name in TURN_FIELDS if _FIELD_TYPES[name] == kind)


def turn_field_type(name: str) -> object:
    return _FIELD_TYPES[name]


@dataclass(frozen=True)
class Hit(Turn):
    """A turn found by a search. `score`, from 0 to 1, higher is better: the share of the most
    any turn could score for the same words in this index (history.ranking.share_of_best); in
    a search blended with meaning, the blend's (history/meaning/blend.py)."""

    score: float


class SearchResults(list[Hit]):
    """A search's hits, best first. `approximate` is True when the search was cut short (its
    words are so common that some matching turns were ranked only among the newest), so the
    order may differ from what ranking every matching turn would give. `partial` is True when
    some turns were not read at all: a forget was rewriting the part of the store that holds
    them (PostgreSQL's partition of their project); the same search a little later reads them.
    `by_meaning`: the turn ids of hits that search by meaning brought, not the words' best."""

    def __init__(
        self,
        hits: Iterable[Hit] = (),
        approximate: bool = False,
        partial: bool = False,
        by_meaning: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__(hits)
        self.approximate = approximate
        self.partial = partial
        self.by_meaning = by_meaning

    def like(self, hits: Iterable[Hit]) -> SearchResults:
        """`hits` said of as this search's are (approximate, partial, brought by meaning)."""
        return SearchResults(hits, self.approximate, self.partial, self.by_meaning)


# How much of a conversation's first question a list shows, and how many of its edited files.
FIRST_ASKED_CHARS = 200
EDITED_SHOWN = 5


def first_asked(text: str) -> str:
    """The start of a question, on one line."""
    flat = " ".join(text.split())
    return flat if len(flat) <= FIRST_ASKED_CHARS else flat[: FIRST_ASKED_CHARS - 1] + "…"


@dataclass(frozen=True)
class ConversationSummary:
    """One conversation's turns in one project, as a list of conversations shows it.

    `first_asked`: the start of its first turn's question; `edited`: the files most of its
    turns edited, the most edited first."""

    session_id: str
    project: str
    first_asked: str
    first_asked_at: datetime
    last_asked_at: datetime
    turns: int
    tainted_turns: int
    edited: tuple[str, ...]

    @property
    def cursor(self) -> str:
        """Pass as `before` to list the conversations after this one."""
        return paging.encode(paging.PageKey(self.last_asked_at, self.session_id, self.project))


@dataclass(frozen=True)
class ProjectSummary:
    project: str
    turns: int
    conversations: int
    first_asked_at: datetime
    last_asked_at: datetime


@dataclass(frozen=True)
class UpsertCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0

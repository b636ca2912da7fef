"""A turn as its row stores it, on either backend: its fields, the lists of names as JSON text.
Without SQLAlchemy, so that a hook writing through the driver alone builds the same rows
(history/store/sqlite/direct.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from history.domain import TURN_FIELDS, Hit, NewTurn, SearchResults, turn_fields_of_type

if TYPE_CHECKING:
    from history.store.search_plan import Ranked

# One encoder for every row: `json.dumps` with an option builds a new one per call.
_ENCODE_NAMES = json.JSONEncoder(ensure_ascii=False).encode


def names_json(names: tuple[str, ...]) -> str:
    """A turn's file or tool names as stored: a JSON array of strings."""
    return _ENCODE_NAMES(names) if names else "[]"


_NAME_LISTS = turn_fields_of_type(tuple[str, ...])
_FLAGS = turn_fields_of_type(bool)  # SQLite stores 0 or 1


def row_values(turn: NewTurn) -> dict[str, Any]:
    """The turn's fields as its row stores them: the lists of names as JSON text."""
    # A turn's attributes are its fields, in order: copied at C speed (an import writes
    # a million rows; building the dict field by field costs half as much again).
    values = vars(turn).copy()
    for name in _NAME_LISTS:
        values[name] = names_json(values[name])
    return values


def turn_fields(row: Sequence[Any]) -> dict[str, Any]:
    """The keyword arguments of a `domain.Turn` from a row of its fields in TURN_FIELDS' order."""
    fields = dict(zip(TURN_FIELDS, row, strict=True))
    for name in _NAME_LISTS:
        fields[name] = _strings(fields[name])
    for name in _FLAGS:
        fields[name] = bool(fields[name])
    return fields


def _strings(stored: str) -> tuple[str, ...]:
    """A stored JSON array of strings; most turns' edited or tools are empty, which costs no
    parse (a 1,000-turn conversation spends much of its time decoding JSON otherwise)."""
    return () if stored == "[]" else tuple(json.loads(stored))


def hit(row: Sequence[Any], score: float) -> Hit:
    return Hit(**turn_fields(row), score=score)


def hits(ranked: Ranked) -> SearchResults:
    found = (hit(row, score) for row, score in ranked.rows)
    return SearchResults(found, ranked.approximate, ranked.partial)

"""A turn as its row stores it, on either backend: its fields, the lists of names as JSON text.
Without SQLAlchemy, so that a hook writing through the driver alone builds the same rows
(history/store/sqlite/direct.py)."""

from __future__ import annotations

import json
from typing import Any

from history.domain import NewTurn, turn_fields_of_type

# One encoder for every row: `json.dumps` with an option builds a new one per call.
_ENCODE_NAMES = json.JSONEncoder(ensure_ascii=False).encode


def names_json(names: tuple[str, ...]) -> str:
    """A turn's file or tool names as stored: a JSON array of strings."""
    return _ENCODE_NAMES(names) if names else "[]"


_NAME_LISTS = turn_fields_of_type(tuple[str, ...])


def row_values(turn: NewTurn) -> dict[str, Any]:
    """The turn's fields as its row stores them: the lists of names as JSON text."""
    # A turn's attributes are its fields, in order: copied at C speed (an import writes
    # a million rows; building the dict field by field costs half as much again).
    values = vars(turn).copy()
    for name in _NAME_LISTS:
        values[name] = names_json(values[name])
    return values

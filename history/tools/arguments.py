"""Checking a model's arguments: what every tool says about a bad one, in one `error:` line."""

from __future__ import annotations

import json

from history.tools.text import clip


class BadArgument(ValueError):
    """An argument the model must change; its message says how."""


def shown(value: object) -> str:
    """A model's value as it sent it, short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return clip(text, 40)


def whole(name: str, value: object, low: int, high: int, hint: str) -> int:
    """A whole number from `low` to `high`; JSON has one number type, so 14.0 is 14."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadArgument(f"{name} must be {hint}; got {shown(value)}.")
    return value

"""Checking a model's arguments: what every tool says about a bad one, in one `error:` line."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from history.i18n import Messages
from history.tools.text import ENGLISH, clip


class BadArgument(ValueError):
    """An argument the model must change; its message says how."""


def shown(value: object) -> str:
    """A model's value as it sent it, short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return clip(text, 40)


def whole(name: str, value: object, low: int, high: int, hint: str, _: Messages = ENGLISH) -> int:
    """A whole number from `low` to `high`; JSON has one number type, so 14.0 is 14. `hint`
    says what it must be, in `_`'s language."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadArgument(
            _("{name} must be {hint}; got {value}.", name=name, hint=hint, value=shown(value))
        )
    return value


def present(
    arguments: object,
    parameters: dict[str, Any],
    example: str,
    missing: str,
    _: Messages = ENGLISH,
) -> dict[str, Any]:
    """A model's raw arguments, checked against the tool's `parameters` for what any call must
    be (an object, no unknown names, the required one there): those given, a JSON null left
    out so that the default applies. `example` shows an object; `missing` says what to pass.
    Arguments may come as the JSON text of an object, as most APIs hand a tool call's over."""
    if isinstance(arguments, str | bytes):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            raise BadArgument(
                _("arguments are not valid JSON; send an object, e.g. {example}.", example=example)
            ) from None
    if not isinstance(arguments, Mapping):
        raise BadArgument(_("arguments must be a JSON object, e.g. {example}.", example=example))
    known = parameters["properties"]
    unknown = sorted(str(key) for key in arguments if key not in known)
    if unknown:
        takes = ", ".join(known)
        names = ", ".join(map(shown, unknown))
        raise BadArgument(
            _("unknown argument {names}; it takes {known}.", names=names, known=takes)
        )
    given = {str(key): value for key, value in arguments.items() if value is not None}
    for name in parameters["required"]:
        if name not in given:
            raise BadArgument(_("{name} is missing; {what}", name=name, what=missing))
    return given

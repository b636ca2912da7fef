"""A turn as the service's `POST /api/code/turns` takes it: redacted here first.

`prepared_body` runs the same `prepare` every stored turn passes through (redaction of every
field, ids and project included, then the caps), so no secret leaves the machine, the outbox
holds only what could be stored, and the service's own `prepare` finds nothing left to change.
The digest of the bytes names one version of a turn: the same turn read again is not sent again.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from history.domain import TURN_FIELDS, Turn
from history.prepare import TurnFields, as_turn, prepare
from history.redaction.ids import IdMask

DIGEST_CHARS = 32


def prepared_body(turn: TurnFields, ids: IdMask) -> tuple[Turn, bytes]:
    """The turn redacted and capped, and its JSON body."""
    prepared = prepare(as_turn(turn), ids)
    return prepared, encoded(prepared)


def encoded(turn: Turn) -> bytes:
    body = {name: _json_value(getattr(turn, name)) for name in TURN_FIELDS}
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.encode("utf-8", "replace")  # a lone surrogate, which no service stores, as "?"


def _json_value(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:DIGEST_CHARS]


def turn_id_of(body: bytes) -> str:
    """The turn id a body names, for a sentence ("" when it names none)."""
    try:
        value = json.loads(body).get("turn_id")
    except (ValueError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""

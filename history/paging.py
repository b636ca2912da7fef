"""The cursor that pages through conversations, newest first.

A page ends at a conversation's key: its last turn's time, then its session id and project, so
that conversations whose last turns share a timestamp still have one order and no page repeats
or skips one. The key travels as an opaque URL-safe string.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from history.i18n import N_

BAD_CURSOR = N_("before must be a cursor a list of conversations gave (its `cursor`)")


@dataclass(frozen=True, order=True)
class PageKey:
    last_asked_at: datetime
    session_id: str
    project: str


def encode(key: PageKey) -> str:
    packed = json.dumps(
        [key.last_asked_at.astimezone(UTC).isoformat(), key.session_id, key.project],
        ensure_ascii=False,
    )
    return base64.urlsafe_b64encode(packed.encode("utf-8")).decode("ascii").rstrip("=")


def decode(cursor: str) -> PageKey:
    """The key `encode` made; ValueError for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        when, session_id, project = json.loads(raw.decode("utf-8"))
        last_asked_at = datetime.fromisoformat(when)
    except (binascii.Error, UnicodeError, ValueError, TypeError):
        raise ValueError(BAD_CURSOR) from None
    if last_asked_at.tzinfo is None or not isinstance(session_id, str):
        raise ValueError(BAD_CURSOR)
    if not isinstance(project, str):
        raise ValueError(BAD_CURSOR)
    return PageKey(last_asked_at.astimezone(UTC), session_id, project)

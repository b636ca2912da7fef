"""What is read is shown under the current secret rules, even before the re-scan reached it.

Turns an older version stored, under rules that missed a secret, are masked in the database by
the re-scan (history/store/rescan.py), in steps, by whichever process has a moment idle. Until
it is done, what a search or a view returns is masked on the way out, so no face shows what the
current rules catch; a search for the secret itself may still find its turn, shown masked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from history.domain import ConversationSummary, Turn

T = TypeVar("T", bound=Turn)


def masked_turn(turn: T) -> T:
    """The turn (or hit) with its texts and names masked by the current rules."""
    from history.redaction import redact  # the rules load only while a re-scan is owed

    return replace(
        turn,
        asked=redact(turn.asked),
        answered=redact(turn.answered),
        work=redact(turn.work),
        files=_names(turn.files),
        edited=_names(turn.edited),
        tools=_names(turn.tools),
    )


def masked_summary(summary: ConversationSummary) -> ConversationSummary:
    from history.redaction import redact

    return replace(summary, first_asked=redact(summary.first_asked), edited=_names(summary.edited))


def _names(names: tuple[str, ...]) -> tuple[str, ...]:
    from history.redaction import redact

    return tuple(redact(name) for name in names)

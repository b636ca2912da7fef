"""What the CLI says of the damaged copies of the history file kept in the home (`recall stats`,
`recall doctor`, a forget): they may still hold what was forgotten since."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from history.cli.language import ngettext, number


def copies_phrase(count: int) -> str:
    return ngettext("{count} damaged copy", "{count} damaged copies", count, count=number(count))


def delete_hint(count: int) -> str:
    return ngettext(
        "`recall doctor --delete-damaged` removes it",
        "`recall doctor --delete-damaged` removes them",
        count,
    )


def forget_note(copies: Sequence[Path], forgot_a_project: bool) -> str | None:
    """What a forget says when damaged copies beside the file may still hold what it forgot."""
    if not copies:
        return None
    count, hint = len(copies), delete_hint(len(copies))
    if forgot_a_project:
        return ngettext(
            "{count} damaged copy in the home may still hold this project: {hint}",
            "{count} damaged copies in the home may still hold this project: {hint}",
            count,
            count=number(count),
            hint=hint,
        )
    return ngettext(
        "{count} damaged copy in the home may still hold this conversation: {hint}",
        "{count} damaged copies in the home may still hold this conversation: {hint}",
        count,
        count=number(count),
        hint=hint,
    )

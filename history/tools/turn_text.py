"""What recall_turn and `recall show` print of whole turns: each dated, its files told apart,
the taint label on each tainted turn, then the question and the answer word for word."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from history.tools.text import TAINT_LINE, dated, file_line, files_told_apart

if TYPE_CHECKING:
    from datetime import datetime

    from history.domain import Turn

FILES_WIDTH = 1_000  # characters of each file list; a longer one ends "+N more"
THIS_ONE = "  ← this one"


def turn_block(
    turn: Turn, now: datetime, here: str | None, number: str = "", marked: bool = False
) -> str:
    """One turn in full. `here`: the project it is read from (another project is named);
    `number`: `[2/5] ` inside a conversation, whose id the header then names instead."""
    head = f"{number}turn {turn.turn_id} · {dated(turn.asked_at, now)}"
    lines = [head if number else f"{head} · conversation {turn.session_id}"]
    if marked:
        lines[0] += THIS_ONE
    if turn.tainted:
        lines.append(TAINT_LINE)
    if turn.project != here:
        lines.append(f"project: {turn.project}")
    lines += files_told_apart(turn, FILES_WIDTH)
    if turn.tools:
        lines.append(file_line("tools", turn.tools, FILES_WIDTH))
    lines += ["asked:", turn.asked, "answered:", turn.answered]
    return "\n".join(lines)


def conversation_text(
    turns: Sequence[Turn], now: datetime, here: str | None, around: str | None = None
) -> str:
    """Turns of one conversation, oldest first, under a header; `around` marks the turn the
    others surround."""
    count = len(turns)
    session = turns[0].session_id
    if around is None:
        header = f"Conversation {session}: {_turns(count)}, oldest first."
    else:
        at = next(i for i, turn in enumerate(turns) if turn.turn_id == around)
        header = (
            f"Turn {around} of conversation {session}, with {_turns(at)} before it and "
            f"{_turns(count - at - 1)} after, oldest first."
        )
    blocks = [
        turn_block(turn, now, here, f"[{i}/{count}] ", marked=turn.turn_id == around)
        for i, turn in enumerate(turns, 1)
    ]
    return "\n\n".join([header, *blocks])


def _turns(count: int) -> str:
    return f"{count} turn" if count == 1 else f"{count} turns"

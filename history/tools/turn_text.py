"""What recall_turn and `recall show` print of whole turns: each dated, its files told apart,
the taint label on each tainted turn, then the question and the answer word for word, and the
turn's work (its commands, failures and added lines) when it has any."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from history.i18n import Messages
from history.tools.text import ENGLISH, TAINT_LINE, dated, file_line, files_told_apart

if TYPE_CHECKING:
    from datetime import datetime

    from history.domain import Turn

FILES_WIDTH = 1_000  # characters of each file list; a longer one ends "+N more"


def turn_block(
    turn: Turn,
    now: datetime,
    here: str | None,
    number: str = "",
    marked: bool = False,
    _: Messages = ENGLISH,
) -> str:
    """One turn in full. `here`: the project it is read from (another project is named);
    `number`: `[2/5] ` inside a conversation, whose id the header then names instead."""
    head = number + _("turn {turn}", turn=turn.turn_id) + f" · {dated(turn.asked_at, now, _)}"
    conversation = _("conversation {conversation}", conversation=turn.session_id)
    lines = [head if number else f"{head} · {conversation}"]
    if marked:
        lines[0] += "  ← " + _("this one")
    if turn.tainted:
        lines.append(_(TAINT_LINE))
    if turn.project != here:
        lines.append(_("project") + f": {turn.project}")
    lines += files_told_apart(turn, FILES_WIDTH, _, whole=True)
    if turn.tools:
        lines.append(file_line(_("tools"), turn.tools, FILES_WIDTH, _, whole=True))
    lines += [_("asked") + ":", turn.asked, _("answered") + ":", turn.answered]
    if turn.work:
        lines += [_("work") + ":", turn.work]
    return "\n".join(lines)


def conversation_text(
    turns: Sequence[Turn],
    now: datetime,
    here: str | None,
    around: str | None = None,
    _: Messages = ENGLISH,
) -> str:
    """Turns of one conversation, oldest first, under a header; `around` marks the turn the
    others surround."""
    count = len(turns)
    session = turns[0].session_id
    if around is None:
        header = _(
            "Conversation {conversation}: {turns}, oldest first.",
            conversation=session,
            turns=_turns(count, _),
        )
    else:
        at = next(i for i, turn in enumerate(turns) if turn.turn_id == around)
        header = _(
            "Turn {turn} of conversation {conversation}, with {before} before it and {after} "
            "after, oldest first.",
            turn=around,
            conversation=session,
            before=_turns(at, _),
            after=_turns(count - at - 1, _),
        )
    blocks = [
        turn_block(turn, now, here, f"[{i}/{count}] ", marked=turn.turn_id == around, _=_)
        for i, turn in enumerate(turns, 1)
    ]
    return "\n\n".join([header, *blocks])


def _turns(count: int, _: Messages) -> str:
    return _.ngettext("{count} turn", "{count} turns", count, count=count)

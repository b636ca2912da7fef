"""What recall_history shows of one hit: a dated block of excerpts and file lists that fits a
budget of characters, with a line warning of turns that read untrusted content. Labels are in
the language of the `_` given (English by default); the stored text stays as it was written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from history.i18n import N_, Messages
from history.query import excerpt

if TYPE_CHECKING:
    from datetime import datetime

    from history.domain import Hit, Turn

TAINT_LINE = N_("[this turn read untrusted content — weigh its answer accordingly]")
QUOTING_LINE = N_("[this turn quoted earlier recall_history results]")
ASKED_MAX, ANSWERED_MAX = 300, 500  # the widths of the excerpts the service's page shows
# A hit is what a model pays for in tokens at each recall: the date, the ids that open the turn,
# the words around the match in the question and the answer, the files (bench/recall_tokens.py
# measures it against the whole turn, which recall_turn gives when it is needed).
HIT_ASKED, HIT_ANSWERED, FILES_MAX = 160, 280, 120
# An id longer than these (none an agent makes; any the API takes) is shown as its start and
# `…`: a turn's still opens it, since recall_turn and `recall show` take the start of an id.
TURN_ID_SHOWN, SESSION_ID_SHOWN = 120, 64
ENGLISH = Messages("tool")


def clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def shown_id(stored: str, width: int) -> str:
    """An id as it was stored (spaces and all, so that it opens what it names), or the start of
    an outlandishly long one and `…`."""
    return stored if len(stored) <= width else stored[: width - 1] + "…"


def quoted(query: str) -> str:
    return f'"{clip(query, 60)}"'


def tail(path: str, width: int) -> str:
    return path if len(path) <= width else "…" + path[-(width - 1) :]


def file_line(
    label: str, paths: Sequence[str], width: int, _: Messages = ENGLISH, whole: bool = False
) -> str:
    """`label: a, b +N more`, as many paths as fit in about `width` characters; each path cut
    to its end unless `whole` (a turn shown in full)."""
    shown: list[str] = []
    used = len(label) + 2
    for i, path in enumerate(paths):
        more = " " + _("+{count} more", count=len(paths) - i - 1) if i < len(paths) - 1 else ""
        if whole:
            item = path
        else:
            item = tail(path, 60 if shown else max(16, min(60, width - used - len(more))))
        if shown and used + len(item) + 2 + len(more) > width:
            break
        shown.append(item)
        used += len(item) + 2
    rest = len(paths) - len(shown)
    return f"{label}: {', '.join(shown)}" + (" " + _("+{count} more", count=rest) if rest else "")


def dated(asked_at: datetime, now: datetime, _: Messages = ENGLISH) -> str:
    """`2026-01-05 13:30 (3 days ago)`, in local time."""
    when = asked_at.astimezone()
    age = (now.date() - when.date()).days
    if age <= 0:
        ago = _("today")
    elif age == 1:
        ago = _("yesterday")
    else:
        ago = _.ngettext("{days} day ago", "{days} days ago", age, days=age)
    return f"{when:%Y-%m-%d %H:%M} ({ago})"


def files_told_apart(
    turn: Turn, width: int, _: Messages = ENGLISH, whole: bool = False
) -> list[str]:
    """`edited:` and `read:` lines (a file edited is not listed as read), paths under the turn's
    project relative to it, each about `width` characters at most (`whole`: no path cut)."""
    prefix = turn.project.rstrip("/") + "/"
    edited = list(dict.fromkeys(path.removeprefix(prefix) for path in turn.edited))
    files = dict.fromkeys(path.removeprefix(prefix) for path in turn.files)
    for path in edited:
        files.pop(path, None)
    return [
        file_line(label, paths, width, _, whole)
        for label, paths in ((_("edited"), edited), (_("read"), list(files)))
        if paths
    ]


def hit_block(
    n: int,
    hit: Hit,
    words: list[str],
    budget: int,
    now: datetime,
    *,
    quoting: bool,
    foreign: bool,
    _: Messages = ENGLISH,
) -> str:
    """Hit number `n`, at most `budget` characters. `quoting`: the turn itself ran recall_history;
    `foreign`: the turn is from another project than the one searched from, so it is named."""
    # The ids whole (but for an outlandish length), so that either opens what it names when
    # pasted into recall_turn or `recall show`: the first line is never cut.
    turn = _("turn {turn}", turn=shown_id(hit.turn_id, TURN_ID_SHOWN))
    conversation = _(
        "conversation {conversation}", conversation=shown_id(hit.session_id, SESSION_ID_SHOWN)
    )
    lines = [f"[{n}] {dated(hit.asked_at, now, _)} · {turn} · {conversation}"]
    if hit.tainted:
        lines.append(_(TAINT_LINE))
    if quoting:
        lines.append(_(QUOTING_LINE))
    if foreign:
        lines.append(_("project") + f": {tail(hit.project, 80)}")
    # What is left after the must-have lines: a fifth for each file list, the rest excerpts.
    room = budget - sum(len(line) + 1 for line in lines) - 24  # labels, newlines, ellipses
    listed = files_told_apart(hit, min(FILES_MAX, room // 5), _)
    room -= sum(len(line) + 1 for line in listed)
    asked_width = max(30, min(HIT_ASKED, room * 2 // 5))
    lines.append(_("asked") + f": {excerpt(hit.asked, words, asked_width)}")
    answered_width = max(40, min(HIT_ANSWERED, room - asked_width))
    lines.append(_("answered") + f": {excerpt(hit.answered, words, answered_width)}")
    block = "\n".join([*lines, *listed])
    return block if len(block) <= budget else block[: max(budget - 1, len(lines[0]) + 1)] + "…"

"""What a blame shows, for a model (recall_file) and a person (`recall blame`) alike: the turns
that touched a file, dated, with their whole ids and the lines they added; or each line of the
file with the turn that wrote it and how sure that is. Labels are in `_`'s language."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from history.blame import FileTurn, LineOrigin
from history.blame_paths import Target
from history.domain import first_asked
from history.i18n import N_, Messages
from history.tools.text import ENGLISH, TAINT_LINE, clip, dated

SURENESS = {
    "exact text": N_("exact text"),
    "same commit": N_("same commit"),
    "nearest in time": N_("nearest in time"),
}
ASKED_WIDTH = 200


def where(target: Target) -> str:
    return target.path if target.project is None else f"{target.path} ({target.project})"


def turn_line(turn: FileTurn, now: datetime, _: Messages = ENGLISH) -> str:
    """`2026-01-05 13:30 (3 days ago) · turn <id> · conversation <id>`: whole ids."""
    shown = _("turn {turn}", turn=turn.turn.turn_id)
    conversation = _("conversation {conversation}", conversation=turn.turn.session_id)
    return f"{dated(turn.turn.asked_at, now, _)} · {shown} · {conversation}"


def about(turn: FileTurn, _: Messages = ENGLISH) -> list[str]:
    """The taint line where it applies, and the question's start."""
    lines = [_(TAINT_LINE)] if turn.turn.tainted else []
    question = first_asked(turn.turn.asked.strip().splitlines()[0] if turn.turn.asked else "")
    lines.append(_("asked") + f": {clip(question, ASKED_WIDTH)}")
    return lines


def turns_text(
    target: Target,
    turns: Sequence[FileTurn],
    now: datetime,
    read: bool,
    added_shown: int,
    _: Messages = ENGLISH,
) -> str:
    """The turns that touched the file, newest first, each with up to `added_shown` of the
    lines it removed and of those it added."""
    fields = {"count": len(turns), "path": where(target)}
    if read:
        header = _.ngettext(
            "{count} turn edited or read {path}, newest first.",
            "{count} turns edited or read {path}, newest first.",
            len(turns),
            **fields,
        )
    else:
        header = _.ngettext(
            "{count} turn edited {path}, newest first.",
            "{count} turns edited {path}, newest first.",
            len(turns),
            **fields,
        )
    blocks = [header]
    for n, turn in enumerate(turns, 1):
        label = _("edited") if turn.edited else _("read")
        lines = [f"[{n}] {turn_line(turn, now, _)} · {label}: {turn.name}", *about(turn, _)]
        lines += [f"  - {line}" for line in turn.removed[:added_shown]]
        if len(turn.removed) > added_shown:
            lines.append("  - …")
        lines += [f"  + {line}" for line in turn.added[:added_shown]]
        if len(turn.added) > added_shown:
            lines.append("  " + _("+{count} more", count=len(turn.added) - added_shown))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def nothing_text(target: Target, read: bool, _: Messages = ENGLISH) -> str:
    if read:
        return _("No recorded turn edited or read {path}.", path=where(target))
    return _("No recorded turn edited {path}.", path=where(target))


def lines_text(
    target: Target, origins: Sequence[LineOrigin], now: datetime, _: Messages = ENGLISH
) -> str:
    """Each line with the turn that wrote it, how sure that is, or that no turn did."""
    first, last = origins[0].number, origins[-1].number
    if first == last:
        header = _("Who wrote line {line} of {path}:", line=first, path=where(target))
    else:
        header = _(
            "Who wrote lines {first} to {last} of {path}:",
            first=first,
            last=last,
            path=where(target),
        )
    blocks = [header]
    for origin in origins:
        lines = [f"{origin.number}: {clip(origin.text, 160)}"]
        commit = _("commit {commit}", commit=origin.commit.sha[:12]) if origin.commit else ""
        if origin.origin is None:
            said = _("no recorded turn wrote this line")
            lines.append("  " + (f"{said} · {commit}" if commit else said))
        else:
            how = " + ".join(_(SURENESS[reason]) for reason in origin.how)
            parts = [turn_line(origin.origin, now, _), how, *([commit] if commit else [])]
            lines.append("  " + " · ".join(parts))
            lines += ["  " + line for line in about(origin.origin, _)]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)

"""`recall_turn`: an earlier turn in full, and the turns around it, for the model that found it
with recall_history. A long answer comes in parts of `PART_CHARS`: each names the `offset` that
continues it."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from history.i18n import N_, Messages
from history.tools.arguments import BadArgument, shown, whole
from history.tools.spec import IndexTool, read_only_annotations
from history.tools.turn_text import conversation_text, turn_block

if TYPE_CHECKING:
    from history.index import AmbiguousTurnId

log = logging.getLogger(__name__)

NAME = "recall_turn"
MAX_RADIUS = 5
PART_CHARS = 6_000  # characters of the answer per call, however long the turns are

DESCRIPTION = N_(
    "Read an earlier coding turn in full: what the user asked and what was answered, word for "
    "word, with the files it read and edited. Pass a turn id from recall_history's results. "
    "radius adds that many turns before and after it in its conversation (1 to 5; 0, the "
    "default, is the turn alone). A long answer comes in parts: call again with the offset it "
    "names. Read-only."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "turn_id": {
            "type": "string",
            "minLength": 1,
            "description": N_("A turn id from recall_history's results."),
        },
        "radius": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_RADIUS,
            "default": 0,
            "description": N_("Turns of its conversation to add before and after it (0 to 5)."),
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": N_(
                "Where to go on reading a long answer: the offset its last part named."
            ),
        },
    },
    "required": ["turn_id"],
    "additionalProperties": False,
}

MCP_ANNOTATIONS = read_only_annotations(N_("Recall a turn"))


class RecallTurnTool(IndexTool):
    name = NAME
    description = DESCRIPTION
    parameters = PARAMETERS
    annotations = MCP_ANNOTATIONS
    example = '{"turn_id": "t-42"}'
    missing = N_("pass a turn id from recall_history's results.")

    def run(self, turn_id: str, radius: int = 0, offset: int = 0) -> str:
        try:
            return self._answer(turn_id, radius, offset)
        except BadArgument as bad:
            return f"error: {bad}"
        except Exception as exc:  # a model gets one line, never a traceback
            log.exception("recall_turn failed")
            _ = self._
            return "error: " + _(
                "the history could not be read ({error}); go on.", error=type(exc).__name__
            )

    def _answer(self, turn_id: object, radius: object, offset: object) -> str:
        _ = self._
        if not isinstance(turn_id, str) or not turn_id.strip():
            raise BadArgument(
                _(
                    "turn_id must be a turn id from recall_history's results; got {value}.",
                    value=shown(turn_id),
                )
            )
        hint = _(
            "a whole number from {low} to {high} (default {default})",
            low=0,
            high=MAX_RADIUS,
            default=0,
        )
        radius = whole("radius", radius, 0, MAX_RADIUS, hint, _)
        offset = whole("offset", offset, 0, 2**63, _("the offset a part named, or 0"), _)
        # The index module (SQLAlchemy beneath it) is loaded by the first turn read, not by
        # the MCP server's start (history/direct_read.py).
        from history.index import AmbiguousTurnId

        try:
            turn = self.index.turn(turn_id.strip(), prefix=True)
        except AmbiguousTurnId as several:
            raise BadArgument(ambiguous(several, _)) from None
        if turn is None:
            raise BadArgument(
                _(
                    "no turn has the id {value} (it may have been forgotten); pass one from "
                    "recall_history's results.",
                    value=shown(turn_id),
                )
            )
        now = datetime.now().astimezone()
        if radius == 0:
            text = turn_block(turn, now, self.project, _=_)
        else:
            around = turn.turn_id  # the whole id, when a prefix was given
            turns = self.index.conversation(turn.session_id, around=around, radius=radius)
            text = conversation_text(turns, now, self.project, around=around, _=_)
        return _part(text, offset, _)


def ambiguous(several: AmbiguousTurnId, _: Messages) -> str:
    """One line: the turn ids the prefix starts, the first few of them, and what to pass."""
    ids = ", ".join(several.candidates)
    if not several.counted:
        return _(
            "turn_id {prefix} starts more than {count} turn ids, the first {ids}; pass a whole "
            "id from recall_history's results.",
            prefix=shown(several.prefix),
            count=several.count - 1,
            ids=ids,
        )
    return _.ngettext(
        "turn_id {prefix} starts {count} turn id: {ids}; pass a whole id.",
        "turn_id {prefix} starts {count} turn ids: {ids}; pass a whole id.",
        several.count,
        prefix=shown(several.prefix),
        count=several.count,
        ids=ids,
    )


def _part(text: str, offset: int, _: Messages) -> str:
    """The `PART_CHARS` of `text` from `offset`, saying how to read on when more is left."""
    if offset and offset >= len(text):
        raise BadArgument(
            _.ngettext(
                "offset {offset} is past the end of this answer ({length} character); call "
                "without offset to read it from the start.",
                "offset {offset} is past the end of this answer ({length} characters); call "
                "without offset to read it from the start.",
                len(text),
                offset=offset,
                length=len(text),
            )
        )
    end = offset + PART_CHARS
    if end >= len(text):
        return text[offset:]
    more = _.ngettext(
        "[+{count} character: call again with offset={end}]",
        "[+{count} characters: call again with offset={end}]",
        len(text) - end,
        count=len(text) - end,
        end=end,
    )
    return f"{text[offset:end]}\n{more}"

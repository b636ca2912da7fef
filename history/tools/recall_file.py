"""`recall_file`: what was done to a file before, and why: the turns that edited it, or the turn
that wrote one of its lines as it is now (history/blame.py), for the agent of one project."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from history import blame
from history.i18n import N_
from history.limits import MAX_K
from history.tools.arguments import BadArgument, shown, whole
from history.tools.file_text import lines_text, nothing_text, turns_text
from history.tools.spec import IndexTool, read_only_annotations

log = logging.getLogger(__name__)

NAME = "recall_file"
OUTPUT_LIMIT = 4_000  # characters, as recall_history's
ADDED_SHOWN = 8  # added lines shown per turn
MAX_LINE = 10_000_000

DESCRIPTION = N_(
    "What was done to a file before, and why: the earlier coding turns that edited it, newest "
    "first, each dated with its turn and conversation ids, the question that led to it and the "
    "lines it added. With line, the turn that wrote that line as it is now, and how sure that "
    "is (exact text, same commit, or nearest in time), or that no recorded turn wrote it. "
    "Use it before changing code whose reason is not obvious. Read-only."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": N_(
                "The file, relative to this project or absolute, e.g. 'src/auth/login.py'."
            ),
        },
        "line": {
            "type": "integer",
            "minimum": 1,
            "description": N_("A line of the file as it is now (from 1): who wrote it."),
        },
        "k": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_K,
            "default": 5,
            "description": N_("How many turns to return, newest first (1 to 10)."),
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}

MCP_ANNOTATIONS = read_only_annotations(N_("Recall file"))


class RecallFileTool(IndexTool):
    name = NAME
    description = DESCRIPTION
    parameters = PARAMETERS
    annotations = MCP_ANNOTATIONS
    example = '{"path": "src/auth/login.py"}'
    missing = N_("pass the file's path, e.g. {example}.")

    def run(self, path: str, line: int | None = None, k: int = 5) -> str:
        try:
            answer = self._answer(path, line, k)
        except BadArgument as bad:
            return f"error: {bad}"
        except Exception as exc:  # a model gets one line, never a traceback
            log.exception("recall_file failed")
            return "error: " + self._(
                "the history could not be searched ({error}); go on.", error=type(exc).__name__
            )
        return answer if len(answer) <= OUTPUT_LIMIT else answer[: OUTPUT_LIMIT - 1] + "…"

    def _answer(self, path: object, line: object, k: object) -> str:
        _ = self._
        if not isinstance(path, str) or not path.strip():
            raise BadArgument(
                _('path must be a file\'s path, e.g. "src/app.py"; got {value}.', value=shown(path))
            )
        hint = _(
            "a whole number from {low} to {high} (default {default})", low=1, high=MAX_K, default=5
        )
        k = whole("k", k, 1, MAX_K, hint, _)
        if line is not None:
            line = whole("line", line, 1, MAX_LINE, _("a line of the file, from 1"), _)
        target = blame.find(self.index, path.strip(), self.project)
        turns = blame.file_turns(self.index, target)
        now = datetime.now().astimezone()
        if line is None:
            if not turns:
                return nothing_text(target, False, _)
            return turns_text(target, turns[:k], now, False, ADDED_SHOWN, _)
        try:
            current = blame.current_lines(target, line, line)
        except OSError as error:
            raise BadArgument(
                _(
                    "the file {path} cannot be read ({error}).",
                    path=path,
                    error=error.strerror or type(error).__name__,
                )
            ) from None
        except blame.PastTheEnd as short:
            raise BadArgument(
                _.ngettext(
                    "{path} has {count} line; line {line} is past its end.",
                    "{path} has {count} lines; line {line} is past its end.",
                    short.lines,
                    path=path,
                    count=short.lines,
                    line=line,
                )
            ) from None
        origins = blame.line_origins(target, turns, current, line, follow=False)
        return lines_text(target, origins, now, _)

"""One agent's tool call, as a turn's facts: which file it read or edited, the command it ran,
the patch it applied, whether it fetched from the web.

Each reader names its agent's tools by kind (`ToolKinds`); the arguments are found by the keys
the agents use for them (a path is `path`, `file_path`, `filepath`, `target_file`…).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from history.importers.base import TurnDraft

PATH_KEYS = (
    "path", "file_path", "filepath", "filePath", "target_file", "relative_workspace_path",
    "absolute_path", "file", "notebook_path", "uri",
)  # fmt: skip
TEXT_KEYS = (
    "content", "contents", "file_text", "new_str", "new_string", "code_edit", "replace",
    "changes", "text", "streamingContent",
)  # fmt: skip
# What an edit call replaced, where its arguments say.
REPLACED_KEYS = ("old_str", "old_string", "oldString", "search", "old_text")
COMMAND_KEYS = ("command", "cmd", "commandLine")
PATCH_KEYS = ("input", "patch", "diff")


@dataclass(frozen=True)
class ToolKinds:
    read: frozenset[str] = frozenset()
    edit: frozenset[str] = frozenset()
    shell: frozenset[str] = frozenset()
    patch: frozenset[str] = frozenset()
    web: frozenset[str] = frozenset()  # this agent's own web fetch, search and browser tools


def arguments(raw: object) -> dict[str, Any]:
    """A call's arguments: an object, or a JSON string holding one; anything else is empty."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return dict(raw) if isinstance(raw, Mapping) else {}


def first_text(args: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def replaced_text(diff: str, side: str = "replace") -> str:
    """The text a SEARCH/REPLACE diff (Cline's `------- SEARCH` / `=======` / `+++++++ REPLACE`,
    Roo Code's `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE`) writes: each replacement; with
    side "search", the text each block replaced."""
    kept: list[str] = []
    inside = None
    for line in diff.splitlines():
        if line.startswith("======="):
            inside = "replace"
        elif line.startswith(("<<<<<<<", "-------")):
            inside = "search"
        elif line.startswith(("+++++++", ">>>>>>>")):
            inside = None
        elif inside == side:
            kept.append(line)
    if "=======" not in diff:
        return diff if side == "replace" else ""
    return "\n".join(kept)


def removed_text(args: Mapping[str, Any]) -> str:
    """What an edit call replaced: its old text, each of its edits list's, or a diff's SEARCH."""
    text = first_text(args, REPLACED_KEYS)
    if not text and isinstance(args.get("diff"), str):
        text = replaced_text(args["diff"], "search")
    edits = args.get("edits")
    if not text and isinstance(edits, list):
        parts = [first_text(edit, REPLACED_KEYS) for edit in edits if isinstance(edit, Mapping)]
        text = "\n".join(part for part in parts if part)
    return text


def edit_text(args: Mapping[str, Any]) -> str:
    """What an edit call writes: its new content, or each replacement of its edits list."""
    text = first_text(args, TEXT_KEYS)
    if not text and isinstance(args.get("diff"), str):
        text = replaced_text(args["diff"])
    edits = args.get("edits")
    if not text and isinstance(edits, list):
        parts = [first_text(edit, TEXT_KEYS) for edit in edits if isinstance(edit, Mapping)]
        text = "\n".join(part for part in parts if part)
    return text


def apply_call(turn: TurnDraft, name: str, raw_args: object, kinds: ToolKinds) -> None:
    """Record the call `name(raw_args)` on `turn`."""
    turn.use_tool(name)
    turn.tainted = turn.tainted or name in kinds.web
    args = arguments(raw_args)
    path = first_text(args, PATH_KEYS)
    if name in kinds.shell:
        command = args.get("command")
        if isinstance(command, Mapping):  # VS Code's {original, toolEdited}
            command = command.get("toolEdited") or command.get("original")
        turn.run_shell(command if isinstance(command, str) else first_text(args, COMMAND_KEYS))
    elif name in kinds.patch:
        turn.apply_patch(first_text(args, PATCH_KEYS))
    elif name in kinds.edit and path:
        turn.write_file(path, edit_text(args), removed_text(args))
    elif name in kinds.read and path:
        turn.touch(path)

"""Gemini parts and tool calls, as Gemini CLI and its fork Qwen Code write them: the texts of
a message's content, a tool result's text, and what one tool call tells about a turn
(`run_shell_command` runs a shell command, `write_file` and `replace`/`edit` edit a file with the
text they write, `read_file` and `read_many_files` read files, web searches taint).
"""

from __future__ import annotations

import re
from typing import Any

from history.importers.base import TurnDraft

SHELL_TOOLS = frozenset({"run_shell_command"})
WRITE_TOOLS = frozenset({"write_file"})
REPLACE_TOOLS = frozenset({"replace", "edit"})
READ_TOOLS = frozenset({"read_file"})
# Search tools whose results are pages of the open web: they taint a turn like a fetch does.
WEB_SEARCH_TOOLS = frozenset({"google_web_search", "web_search"})
PATH_ARGS = ("file_path", "absolute_path", "path", "dir_path", "directory")
ABSOLUTE = re.compile(r"(?:/|[A-Za-z]:\\)[^\s\"'`,;:()<>|]+")


def part_texts(content: object) -> list[str]:
    """The texts of a message's content: a string, or a list of parts (thoughts left out)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return []
    return [
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
    ]


def result_text(result: object) -> str:
    """A tool result's text: `functionResponse.response.error` or `.output`, or a string."""
    if isinstance(result, str):
        return result
    texts = []
    for item in result if isinstance(result, list) else [result]:
        response = item.get("functionResponse") if isinstance(item, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("error", body.get("output"))
            if isinstance(value, str):
                texts.append(value)
    return "\n".join(texts)


def apply_tool(turn: TurnDraft, name: str, args: object, error: str | None) -> None:
    """What one Gemini-style tool call tells about a turn; `error` is a failed call's output."""
    turn.use_tool(name)
    if name in WEB_SEARCH_TOOLS:
        turn.tainted = True
    if isinstance(args, dict):
        tool_args(turn, name, args)
    if error is not None:
        turn.failed(error or f"{name} failed")


def tool_args(turn: TurnDraft, name: str, args: dict[str, Any]) -> None:
    path = next((args[key] for key in PATH_ARGS if isinstance(args.get(key), str)), None)
    if name in SHELL_TOOLS and isinstance(args.get("command"), str):
        turn.run_shell(args["command"])
    elif name in WRITE_TOOLS and path:
        turn.write_file(path, str(args.get("content") or ""))
    elif name in REPLACE_TOOLS and path:
        turn.write_file(path, str(args.get("new_string") or ""), str(args.get("old_string") or ""))
    elif name in READ_TOOLS and path:
        turn.touch(path)
    elif name == "read_many_files" and isinstance(args.get("paths"), list):
        for item in args["paths"]:
            if isinstance(item, str) and not any(c in item for c in "*?["):
                turn.touch(item)

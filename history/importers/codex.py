"""OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.

`session_meta` gives the session id and cwd. Prompts come from one source only, the
`event_msg` of type `user_message`: it holds what the person typed, while the `user`-role
`response_item` messages repeat it and also carry injected AGENTS.md, environment_context and
instruction text. The answer is the last `assistant` `response_item` message of the turn.
Tools come from `function_call`, `custom_tool_call`, `local_shell_call` and `web_search_call`
items; apply_patch headers name edited files, shell commands are read by `shell_facts`.
Rollouts from before `session_meta` existed (no `payload` envelope) are not read.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from history.importers.base import (
    DraftReader,
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    json_objects,
    parse_timestamp,
    sorted_files,
)

KNOWN_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
SHELL_TOOLS = frozenset({"shell", "exec_command", "local_shell", "shell_command", "container.exec"})
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")


def _command_text(arguments: dict[str, Any]) -> str:
    """The shell script a call runs: `cmd`, or `command` as a string or an argv list."""
    command = arguments.get("cmd", arguments.get("command"))
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) >= 3 and command[1] in ("-c", "-lc"):
            return str(command[2])
        return shlex.join(command)
    return ""


class Codex(TranscriptFormat):
    name = "codex"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        """`$CODEX_HOME` (default `~/.codex`, `%USERPROFILE%\\.codex` on Windows): its
        `sessions` and `archived_sessions`."""
        home = places.home
        if places.system == "Windows" and places.env.get("USERPROFILE"):
            home = Path(places.env["USERPROFILE"])
        codex = Path(places.env.get("CODEX_HOME") or home / ".codex")
        return [codex / "sessions", codex / "archived_sessions"]

    def discover(self, root: Path) -> Iterator[Path]:
        yield from sorted_files(root, "*.jsonl")

    def claims(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        for line in islice(json_objects(path, ReadReport()), 20):
            if isinstance(line.get("payload"), dict) and line.get("type") in KNOWN_TYPES:
                return True
        return False

    def read(self, path: Path) -> ReadReport:
        return _Reader(path).run()


class _Reader(DraftReader):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session_id = path.stem
        self.project = ""
        self.meta_seen = False
        self.prompts = 0

    def run(self) -> ReadReport:
        unknown = 0
        for line in json_objects(self.path, self.report):
            kind = line.get("type")
            kind = kind if isinstance(kind, str) else None
            payload = line.get("payload")
            if kind not in KNOWN_TYPES or not isinstance(payload, dict):
                unknown += 1
            elif kind == "session_meta":
                self.meta(payload)
            elif kind == "event_msg" and payload.get("type") == "user_message":
                self.prompt(payload, line.get("timestamp"))
            elif kind == "response_item" and self.current is not None:
                self.item(payload, self.current)
        self.count_unknown(unknown)
        if unknown and not self.meta_seen:
            self.report.problems.append(
                f"{self.path.name} has no session_meta line; older Codex rollouts are not read."
            )
        self.close()
        return self.report

    def meta(self, payload: dict[str, Any]) -> None:
        # A resumed or forked rollout can repeat meta lines; the first one names this file.
        if self.meta_seen:
            return
        self.meta_seen = True
        self.session_id = str(payload.get("id") or self.session_id)
        self.project = str(payload.get("cwd") or "")

    def prompt(self, payload: dict[str, Any], timestamp: object) -> None:
        text = payload.get("message")
        if not isinstance(text, str) or payload.get("kind", "plain") != "plain":
            return
        text = text.strip()
        if text.startswith(INJECTED) or not (text or payload.get("images")):
            return
        self.close()
        self.current = TurnDraft(
            turn_id=f"codex:{self.session_id}:{self.prompts}",
            session_id=self.session_id,
            project=self.project,
            asked=text,
            asked_at=parse_timestamp(timestamp) or file_time(self.path),
        )
        self.prompts += 1

    def item(self, payload: dict[str, Any], turn: TurnDraft) -> None:
        kind = payload.get("type")
        name = payload.get("name")
        if kind == "message" and payload.get("role") == "assistant":
            content = payload.get("content")
            parts = content if isinstance(content, list) else []
            text = "".join(
                part["text"]
                for part in parts
                if isinstance(part, dict) and isinstance(part.get("text"), str)
            )
            if text.strip():
                turn.say(text)
        elif kind == "web_search_call":
            turn.use_tool("web_search")
        elif kind == "local_shell_call":
            turn.use_tool("local_shell")
            action = payload.get("action")
            if isinstance(action, dict):
                turn.run_shell(_command_text(action))
        elif kind == "custom_tool_call" and isinstance(name, str):
            turn.use_tool(name)
            tool_input = payload.get("input")
            if isinstance(tool_input, str):
                turn.apply_patch(tool_input)
        elif kind == "function_call" and isinstance(name, str):
            turn.use_tool(name)
            self.function_call(name, payload.get("arguments"), turn)

    def function_call(self, name: str, raw: object, turn: TurnDraft) -> None:
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return
        if not isinstance(arguments, dict):
            return
        if isinstance(arguments.get("input"), str):
            turn.apply_patch(arguments["input"])
        if name in SHELL_TOOLS:
            turn.run_shell(_command_text(arguments))

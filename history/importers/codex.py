"""OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.

`session_meta` gives the session id and cwd. Prompts come from one source only, the
`event_msg` of type `user_message`: it holds what the person typed, while the `user`-role
`response_item` messages repeat it and also carry injected AGENTS.md, environment_context and
instruction text. The answer is every assistant text of the turn: the `assistant`
`response_item` messages and the `agent_message` events, which repeat each other (the same text
arriving from both, one after the other, is kept once).
Tools come from `function_call`, `custom_tool_call`, `local_shell_call` and `web_search_call`
items; apply_patch headers name edited files, shell commands are read by `shell_facts`.
Work: each command, each patch's added lines, and the first lines of every exec that exited
non-zero, read from `exec_command_end` events (`exit_code`) and from tool outputs: a JSON
`{"output", "metadata": {"exit_code"}}` (older rollouts, which have no end events), or text that
says `Process exited with code N` (read only in a rollout without end events: there the
`write_stdin` that saw the process end reports it again under another call id). Once per call.
Rollouts from before `session_meta` existed (no `payload` envelope) are not read.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from history.importers.base import (
    DraftReader,
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
EXIT_TEXT = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.MULTILINE)
OUTPUT_TEXT = re.compile(r"^Output:\n", re.MULTILINE)


def _exit_failure(output: object) -> tuple[int, str, bool] | None:
    """A tool output's non-zero exit code, what it printed, and whether it said so in text
    rather than JSON; None when it did not fail."""
    if not isinstance(output, str):
        return None
    try:
        parsed = json.loads(output) if output.startswith("{") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        metadata = parsed.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        printed = parsed.get("output")
        if isinstance(code, int) and code != 0:
            return code, printed if isinstance(printed, str) else "", False
        return None
    match = EXIT_TEXT.search(output)
    if match is None or int(match.group(1)) == 0:
        return None
    body = OUTPUT_TEXT.search(output, match.end())
    return int(match.group(1)), output[body.end() :] if body else "", True


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
        return Path.home() / ".codex" / "sessions"

    def discover(self, root: Path) -> Iterator[Path]:
        yield from sorted_files(root, "*.jsonl")

    def read(self, path: Path) -> ReadReport:
        return _Reader(path).run()


class _Reader(DraftReader):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session_id = path.stem
        self.project = ""
        self.meta_seen = False
        self.prompts = 0
        self.failed_calls: set[str] = set()
        self.exec_ends = False  # the rollout records exec_command_end events
        self.last_said = ("", "")  # (where from, text) of the turn's latest answer text

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
            elif kind == "event_msg" and self.current is not None:
                self.event(payload, self.current)
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
        self.last_said = ("", "")
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
            self.say("item", text, turn)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            failure = _exit_failure(payload.get("output"))
            if failure is not None and not (failure[2] and self.exec_ends):
                self.exec_failed(payload.get("call_id"), failure[0], failure[1], turn)
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

    def event(self, payload: dict[str, Any], turn: TurnDraft) -> None:
        kind = payload.get("type")
        if kind == "agent_message" and isinstance(payload.get("message"), str):
            self.say("event", payload["message"], turn)
        elif kind == "exec_command_end":
            self.exec_ends = True
            code = payload.get("exit_code")
            if isinstance(code, int) and code != 0:
                printed = payload.get("aggregated_output") or payload.get("stderr")
                self.exec_failed(
                    payload.get("call_id"), code, printed if isinstance(printed, str) else "", turn
                )

    def say(self, source: str, text: str, turn: TurnDraft) -> None:
        text = text.strip()
        if not text:
            return
        said_from, said = self.last_said
        if text == said and source != said_from:  # the other record of the text just kept
            self.last_said = ("", "")
            return
        turn.say(text)
        self.last_said = (source, text)

    def exec_failed(self, call_id: object, code: int, printed: str, turn: TurnDraft) -> None:
        if isinstance(call_id, str) and call_id:
            if call_id in self.failed_calls:
                return
            self.failed_calls.add(call_id)
        turn.failed(printed if printed.strip() else f"exit code {code}")

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

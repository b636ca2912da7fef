"""GitHub Copilot CLI sessions: `~/.copilot/session-state/<sessionId>/events.jsonl` (older builds:
`~/.copilot/session-state/<sessionId>.jsonl`; `$COPILOT_HOME` moves `~/.copilot`).

Each line is an event `{type, data, id, timestamp, parentId}`. `session.start` names the session
and its `context.cwd` (the project; failing that, `cwd:` in `workspace.yaml` beside the events).
A prompt is a `user.message`, less the reminders and context the CLI wraps around it. The answer
is every `assistant.message` content; tools come from its `toolRequests` and from
`tool.execution_start` (one call counted once, by `toolCallId`), and a `tool.execution_complete`
without `success` logs its output as a failure. A sub-agent's events carry `parentToolCallId`:
their tools count toward the turn that launched them, their text is not its answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from history.importers.base import (
    DraftReader,
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    first_records,
    json_objects,
    parse_timestamp,
)
from history.importers.editors import NO_FOLDER
from history.importers.tool_calls import ToolKinds, apply_call, arguments

KINDS = ToolKinds(
    read=frozenset({"view", "show_file"}),
    edit=frozenset({"create", "edit", "str_replace", "insert"}),
    shell=frozenset({"bash", "powershell"}),
    patch=frozenset({"apply_patch"}),
    web=frozenset({"web_fetch", "web_search"}),
)
WRAPPERS = re.compile(
    r"<(reminder|attachments|context|current_datetime)>.*?</\1>\s*|<pr_metadata[^>]*/?>\s*",
    re.DOTALL,
)
KNOWN_PREFIXES = ("session.", "user.", "assistant.", "tool.", "abort", "subagent.", "hook.")


class CopilotCli(TranscriptFormat):
    name = "copilot-cli"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        home = places.env.get("COPILOT_HOME")
        base = Path(home) if home else places.home / ".copilot"
        return [base / "session-state"]

    def claims(self, path: Path) -> bool:
        """Copilot CLI events: a dotted `type` with a `data` object."""
        return any(
            isinstance(line.get("type"), str)
            and "." in line["type"]
            and isinstance(line.get("data"), dict)
            for line in first_records(path)
        )

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            for path in sorted(root.rglob("*.jsonl")):
                if path.is_file() and (path.name == "events.jsonl" or path.parent == root):
                    yield path

    def read(self, path: Path) -> ReadReport:
        return _Reader(path).run()


class _Reader(DraftReader):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session_id = path.parent.name if path.name == "events.jsonl" else path.stem
        self.project = self.workspace_cwd()
        self.calls: set[str] = set()
        self.prompts = 0

    def workspace_cwd(self) -> str:
        try:
            text = (self.path.parent / "workspace.yaml").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""
        found = re.search(r"^cwd:\s*['\"]?(.+?)['\"]?\s*$", text, re.MULTILINE)
        return found.group(1) if found else ""

    def run(self) -> ReadReport:
        unknown = 0
        for line in json_objects(self.path, self.report):
            kind, data = line.get("type"), line.get("data")
            if not isinstance(kind, str) or not kind.startswith(KNOWN_PREFIXES):
                unknown += 1
            elif not isinstance(data, dict):
                continue
            elif kind == "session.start":
                self.start(data)
            elif kind == "user.message":
                self.prompt(data, line.get("timestamp"))
            elif self.current is not None:
                self.event(kind, data, self.current)
        self.count_unknown(unknown)
        self.close()
        return self.report

    def start(self, data: dict[str, Any]) -> None:
        self.session_id = str(data.get("sessionId") or self.session_id)
        context = data.get("context")
        if isinstance(context, dict) and isinstance(context.get("cwd"), str):
            self.project = context["cwd"]

    def prompt(self, data: dict[str, Any], timestamp: object) -> None:
        content = data.get("content")
        asked = WRAPPERS.sub("", content).strip() if isinstance(content, str) else ""
        if not asked and not data.get("attachments"):
            return
        self.close()
        self.current = TurnDraft(
            turn_id=f"copilot-cli:{self.session_id}:{self.prompts}",
            session_id=self.session_id,
            project=self.project or NO_FOLDER,
            asked=asked,
            asked_at=parse_timestamp(timestamp) or file_time(self.path),
        )
        self.prompts += 1

    def event(self, kind: str, data: dict[str, Any], turn: TurnDraft) -> None:
        if kind == "assistant.message":
            content = data.get("content")
            if isinstance(content, str) and not data.get("parentToolCallId"):
                turn.say(content)
            requests = data.get("toolRequests")
            for request in requests if isinstance(requests, list) else []:
                if isinstance(request, dict):
                    self.call(request.get("toolCallId"), request.get("name"), request, turn)
        elif kind == "tool.execution_start":
            self.call(data.get("toolCallId"), data.get("toolName"), data, turn)
        elif kind == "tool.execution_complete" and data.get("success") is False:
            result, error = data.get("result"), data.get("error")
            for source in (result, error):
                if isinstance(source, dict):
                    for key in ("content", "message"):
                        if isinstance(source.get(key), str):
                            turn.failed(source[key])
                            return

    def call(self, call_id: object, name: object, data: dict[str, Any], turn: TurnDraft) -> None:
        if not isinstance(name, str) or (isinstance(call_id, str) and call_id in self.calls):
            return
        if isinstance(call_id, str):
            self.calls.add(call_id)
        args = arguments(data.get("arguments"))
        if name == "str_replace_editor":  # one tool whose `command` is view/create/str_replace…
            command = args.get("command")
            turn.use_tool(name)
            name = command if isinstance(command, str) else name
        server = data.get("mcpServerName")
        if isinstance(server, str) and server:
            turn.use_tool(f"mcp__{server}__{data.get('mcpToolName') or name}")
        apply_call(turn, name, args, KINDS)

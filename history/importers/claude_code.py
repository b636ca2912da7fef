"""Claude Code sessions: `~/.claude/projects/<project-slug>/<sessionId>.jsonl`.

A prompt is a `user` line typed by the person, or a prompt they queued while Claude was busy
(an `attachment` of type `queued_command`). These `user` lines are not prompts: tool results,
`isMeta` lines (hook feedback, expanded commands), `isCompactSummary` continuations, sidechain
(sub-agent) lines, slash-command and local-command wrappers, `!` shell-mode echoes, and
interruption markers. Work that follows a non-prompt stays with the turn before it.

The answer is every assistant text of the turn, in order. The work: each Bash command; each
tool result marked `is_error` (or a Bash result that was `interrupted`), its first lines; and
each Edit / MultiEdit (`new_string`), Write (`content`) and NotebookEdit (`new_source`) with the
text it wrote.

Sub-agents: their tool calls, work, files and taint count toward the turn that launched them,
both when their lines sit inline (`isSidechain`) and when they live in `<session>/subagents/
agent-<id>.jsonl` or `agent-<id>.jsonl` beside the session. Their text is never the answer.
`discover` skips sub-agent files, which hold no prompts.
"""

from __future__ import annotations

import re
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

# Line types Claude Code writes; only user, assistant and attachment lines matter here.
# fmt: off
KNOWN_TYPES = frozenset({
    "user", "assistant", "attachment", "system", "summary", "progress", "file-history-snapshot",
    "queue-operation", "custom-title", "ai-title", "last-prompt", "permission-mode", "mode", "tag",
    "agent-name", "agent-setting", "pr-link", "worktree-state", "attribution-snapshot",
    "content-replacement", "speculation-accept", "bridge-session",
})
NOT_PROMPTS = (
    "<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
    "<local-command-stderr>", "<local-command-caveat>", "<bash-input>", "<bash-stdout>",
    "<bash-stderr>", "<user-memory-input>", "<task-notification>", "[Request interrupted by user",
    "Caveat: The messages below were generated",
    "This session is being continued from a previous conversation",
)
# fmt: on
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
AGENT_ID = re.compile(r"[\w-]{1,64}")
ERROR_TAGS = re.compile(r"</?tool_use_error>")


def _blocks(line: dict[str, Any]) -> list[dict[str, Any]]:
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _result_text(content: object) -> str:
    """A tool_result's content as text: a string, or the text of its blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part["text"])
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _written(name: str, tool_input: dict[str, Any]) -> str | None:
    """The text an edit tool wrote, when its input says (None: it names no text)."""
    if name == "MultiEdit" and isinstance(tool_input.get("edits"), list):
        return "\n".join(
            str(edit["new_string"])
            for edit in tool_input["edits"]
            if isinstance(edit, dict) and isinstance(edit.get("new_string"), str)
        )
    key = {"Edit": "new_string", "Write": "content", "NotebookEdit": "new_source"}.get(name)
    value = tool_input.get(key) if key else None
    return value if isinstance(value, str) else None


def _replaced(name: str, tool_input: dict[str, Any]) -> str:
    """The text an Edit or a MultiEdit replaced (empty for a tool that names none)."""
    edits = tool_input.get("edits") if name == "MultiEdit" else [tool_input]
    if name not in ("Edit", "MultiEdit") or not isinstance(edits, list):
        return ""
    return "\n".join(
        str(edit["old_string"])
        for edit in edits
        if isinstance(edit, dict) and isinstance(edit.get("old_string"), str)
    )


class ClaudeCode(TranscriptFormat):
    name = "claude-code"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        """`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects` (`%USERPROFILE%` on
        Windows)."""
        home = places.home
        if places.system == "Windows" and places.env.get("USERPROFILE"):
            home = Path(places.env["USERPROFILE"])
        config = places.env.get("CLAUDE_CONFIG_DIR")
        return [Path(config) / "projects" if config else home / ".claude" / "projects"]

    def claims(self, path: Path) -> bool:
        """A JSONL file whose lines carry a `sessionId` or a Claude Code line type, with
        Anthropic-style `content` (Qwen Code's records, also keyed by `sessionId`, hold
        Gemini `parts`; Gemini CLI's carry a `projectHash`)."""
        if path.suffix != ".jsonl":
            return False
        for line in islice(json_objects(path, ReadReport()), 20):
            message = line.get("message")
            if "projectHash" in line or (isinstance(message, dict) and "parts" in message):
                return False
            if "sessionId" in line or line.get("type") in KNOWN_TYPES:
                return True
        return False

    def discover(self, root: Path) -> Iterator[Path]:
        for path in sorted_files(root, "*.jsonl"):
            if path == root or not ("subagents" in path.parts or path.name.startswith("agent-")):
                yield path

    def read(self, path: Path) -> ReadReport:
        return _Reader(path).run()


class _Reader(DraftReader):
    def run(self) -> ReadReport:
        unknown = 0
        for line in json_objects(self.path, self.report):
            kind = line.get("type")
            kind = kind if isinstance(kind, str) else None
            if kind == "user":
                self.user(line)
            elif kind == "assistant":
                self.assistant(line)
            elif kind == "attachment":
                self.attachment(line)
            elif kind not in KNOWN_TYPES:
                unknown += 1
        self.count_unknown(unknown)
        self.close()
        return self.report

    def start(self, line: dict[str, Any], asked: str) -> None:
        self.close()
        session = str(line.get("sessionId") or self.path.stem)
        mark = line.get("uuid") or f"line-{self.report.lines}"
        self.current = TurnDraft(
            turn_id=f"claude-code:{session}:{mark}",
            session_id=session,
            project=str(line.get("cwd") or ""),
            asked=asked,
            asked_at=parse_timestamp(line.get("timestamp")) or file_time(self.path),
        )

    def user(self, line: dict[str, Any]) -> None:
        blocks = _blocks(line)
        if any(block.get("type") == "tool_result" for block in blocks):
            self.tool_results(line, blocks)
            result = line.get("toolUseResult")
            if isinstance(result, dict) and not line.get("isSidechain"):
                self.merge_subagent(result.get("agentId"))
            return
        if any(line.get(flag) for flag in ("isSidechain", "isMeta", "isCompactSummary")):
            return
        texts = [
            block["text"].strip()
            for block in blocks
            if block.get("type") == "text" and isinstance(block.get("text"), str)
        ]
        asked = "\n\n".join(t for t in texts if t and not t.startswith("<system-reminder>"))
        has_image = any(block.get("type") == "image" for block in blocks)
        if (asked or has_image) and not asked.startswith(NOT_PROMPTS):
            self.start(line, asked)

    def tool_results(self, line: dict[str, Any], blocks: list[dict[str, Any]]) -> None:
        """Failed tool results join the work: `is_error`, or a Bash run that was interrupted."""
        if self.current is None:
            return
        result = line.get("toolUseResult")
        for block in blocks:
            if block.get("type") != "tool_result":
                continue
            if block.get("is_error") is True:
                self.current.failed(ERROR_TAGS.sub("", _result_text(block.get("content"))))
            elif isinstance(result, dict) and result.get("interrupted") is True:
                stderr = result.get("stderr")
                self.current.failed(stderr if isinstance(stderr, str) and stderr else "Interrupted")

    def attachment(self, line: dict[str, Any]) -> None:
        item = line.get("attachment")
        if not isinstance(item, dict) or item.get("type") != "queued_command":
            return
        origin = item.get("origin")
        human = not isinstance(origin, dict) or origin.get("kind") in (None, "human")
        prompt = item.get("prompt")
        if (
            human
            and item.get("commandMode", "prompt") == "prompt"
            and isinstance(prompt, str)
            and prompt.strip()
            and not prompt.strip().startswith(NOT_PROMPTS)
            and not line.get("isSidechain")
        ):
            self.start(line, prompt.strip())

    def assistant(self, line: dict[str, Any]) -> None:
        if self.current is None:
            return
        for block in _blocks(line):
            if block.get("type") == "tool_use":
                self.tool_use(block)
            elif block.get("type") == "text" and not line.get("isSidechain"):
                text = block.get("text")
                if not isinstance(text, str) or not text.strip():
                    continue
                self.current.say(text)

    def tool_use(self, block: dict[str, Any]) -> None:
        name = block.get("name")
        tool_input = block.get("input")
        if self.current is None or not isinstance(name, str):
            return
        self.current.use_tool(name)
        if not isinstance(tool_input, dict):
            return
        for key in ("file_path", "notebook_path"):
            path = tool_input.get(key)
            if not isinstance(path, str):
                continue
            written = _written(name, tool_input) if name in EDIT_TOOLS else None
            if written is not None:
                self.current.write_file(path, written, _replaced(name, tool_input))
            else:
                self.current.touch(path, edit=name in EDIT_TOOLS)
        if name == "Bash" and isinstance(tool_input.get("command"), str):
            self.current.run_shell(tool_input["command"])

    def merge_subagent(self, agent_id: object) -> None:
        if self.current is None or not isinstance(agent_id, str):
            return
        if not AGENT_ID.fullmatch(agent_id):
            return
        name = f"agent-{agent_id}.jsonl"
        for candidate in (self.path.with_suffix("") / "subagents" / name, self.path.parent / name):
            if candidate.is_file():
                for line in json_objects(candidate, ReadReport()):
                    blocks = _blocks(line)
                    if line.get("type") == "assistant":
                        for block in blocks:
                            if block.get("type") == "tool_use":
                                self.tool_use(block)
                    elif line.get("type") == "user":
                        self.tool_results(line, blocks)
                return

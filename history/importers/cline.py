"""Cline task folders, and those of its forks Roo Code and Kilo Code.

Each task is `<globalStorage>/<extension id>/tasks/<taskId>/` (Cline's CLI also keeps them in
`~/.cline/data/tasks/`), holding `api_conversation_history.json` (the Anthropic-style messages
sent to the model) and `ui_messages.json` (what the panel showed, with times).

The prompt of a task is the `<task>…</task>` text of its first user message; a later prompt is
what the person typed into the chat: `<feedback>` (to a completion or a tool), or the
`<user_message>` given when a task is resumed. Every other user message is a tool's result sent
back as text (`[read_file for 'a.py'] Result:`) or a `tool_result` block, and is not a prompt.
Older builds write tool calls as XML in the assistant's text (`<read_file><path>…</path>`), newer
ones as `tool_use` blocks; both are read, and the XML is not part of the answer. The project is
the `# Current Working Directory (…)` (Roo Code: `# Current Workspace Directory (…)`) of the
environment details Cline appends to the first message; failing that, the task's
`history_item.json` workspace or the `cwdOnTaskInitialization` of `state/taskHistory.json`.
With none of these the project is the home folder (`~`).
Times: a message's `ts`, else the panel's task and feedback times in order, else the task id
(epoch milliseconds). A Roo Code sub-task (`new_task`) is folded into the turn that
launched it (history.importers.cline_task) and not read as a task of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from history.importers import cline_task as task
from history.importers.base import (
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    sorted_files,
)
from history.importers.editors import NO_FOLDER, user_folders
from history.importers.json_files import load
from history.importers.tool_calls import ToolKinds, apply_call

HISTORY = "api_conversation_history.json"
MAX_DEPTH = 4  # sub-tasks of sub-tasks are folded this deep
KINDS = ToolKinds(
    read=frozenset({"read_file"}),
    edit=frozenset({
        "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
        "edit_file", "new_rule",
    }),
    shell=frozenset({"execute_command"}),
    patch=frozenset({"apply_patch"}),
    web=frozenset({"browser_action", "web_fetch", "web_search"}),
)  # fmt: skip
SAID = {"attempt_completion": "result", "plan_mode_respond": "response",
        "ask_followup_question": "question"}  # fmt: skip
XML_TOOLS = sorted(KINDS.read | KINDS.edit | KINDS.shell | KINDS.web | set(SAID) | {
    "search_files", "list_files", "list_code_definition_names", "use_mcp_tool",
    "access_mcp_resource", "new_task", "switch_mode", "codebase_search", "use_subagents",
    "load_mcp_documentation", "condense", "summarize_task", "report_bug", "fetch_instructions",
    "update_todo_list", "focus_chain", "generate_explanation",
})  # fmt: skip
XML_CALL = re.compile(rf"<({'|'.join(XML_TOOLS)})>(.*?)(?:</\1>|\Z)", re.DOTALL)
XML_PARAM = re.compile(r"<(\w+)>\n?(.*?)\n?</\1>", re.DOTALL)
THINKING = re.compile(r"<thinking>.*?(?:</thinking>|\Z)", re.DOTALL)
HUMAN = (
    re.compile(r"<task>\n?(.*?)\n?</task>", re.DOTALL),
    re.compile(r"<user_message>\n?(.*?)\n?</user_message>", re.DOTALL),
    re.compile(r"<feedback>\n?(.*?)\n?</feedback>", re.DOTALL),
)
# A block holds the person's words when it starts with one of these (a file's text that a tool
# read back may hold the same tags anywhere).
HUMAN_STARTS = (
    "<task>", "<feedback>", "<user_message>", "[TASK RESUMPTION]", "The user has provided feedback",
    "The user denied this operation and provided the following feedback",
)  # fmt: skip
XML_PATH = re.compile(r"<path>(.*?)</path>", re.DOTALL)
ERROR = re.compile(r"<error>\n?(.*?)\n?</error>", re.DOTALL)
DETAILS = re.compile(r"<environment_details>.*?(?:</environment_details>|\Z)", re.DOTALL)


class Cline(TranscriptFormat):
    name = "cline"
    extension = "saoudrizwan.claude-dev"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        roots = [user / "globalStorage" / self.extension for user in user_folders(places)]
        if self.name == "cline":
            roots.insert(1, places.home / ".cline" / "data")
        return roots

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_dir() and (root / HISTORY).is_file():  # one task's folder
            yield root / HISTORY
            return
        for path in sorted_files(root, HISTORY):
            # A task under another fork's extension folder is that fork's to read.
            others = EXTENSIONS - {self.extension}
            mine = path.name == HISTORY and not others.intersection(path.parts)
            if mine and not task.is_subtask(path.parent):
                yield path

    def read(self, path: Path) -> ReadReport:
        return _Reader(self.name, path).run()


EXTENSIONS = frozenset(
    {"saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code"}
)


class RooCode(Cline):
    name = "roo-code"
    extension = "rooveterinaryinc.roo-cline"


class KiloCode(Cline):
    name = "kilo-code"
    extension = "kilocode.kilo-code"


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    texts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
    return texts


class _Reader:
    def __init__(self, agent: str, path: Path, depth: int = 0) -> None:
        self.agent, self.path, self.depth = agent, path, depth
        self.folder = path.parent
        self.task = self.folder.name
        self.report = ReadReport()
        self.current: TurnDraft | None = None
        self.project = ""
        self.prompt_times: list[datetime] = []
        self.children = task.child_ids(self.folder) if depth < MAX_DEPTH else []
        self.folded: set[str] = set()
        self.launched = 0

    def run(self) -> ReadReport:
        loaded = load(self.path)
        messages = loaded.value if loaded.complete else loaded.entries
        if loaded.problem:
            self.report.problems.append(loaded.problem)
        if not isinstance(messages, list):
            self.report.problems.append(f"{self.path.name} holds no list of messages.")
            return self.report
        self.prompt_times = task.prompt_times(self.folder)
        first = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
        self.project = task.project(self.folder, _texts(first)) or NO_FOLDER
        for message in messages:
            self.report.lines += 1
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                self.report.skipped += 1
            elif message["role"] == "user":
                self.user(message)
            elif self.current is not None:
                self.assistant(message)
        if self.report.skipped:
            self.report.problems.append(
                f"{self.report.skipped} message(s) in {self.task}/{HISTORY} were not "
                "user or assistant messages and were skipped."
            )
        self.close()
        return self.report

    def close(self) -> None:
        if self.current is not None:
            self.report.turns.append(self.current.finish())
        self.current = None

    def user(self, message: dict[str, Any]) -> None:
        texts = _texts(message)
        text = "\n\n".join(texts)
        asked = self.human_text([t for t in texts if t.lstrip().startswith(HUMAN_STARTS)])
        if asked is None and self.current is None and not self.report.turns:
            asked = DETAILS.sub("", text).strip() or None  # a first message with no <task>
        if asked is None:
            self.tool_results(message, text)
            return
        self.close()
        number = len(self.report.turns)
        when = task.epoch_ms(message.get("ts"))
        if when is None and number < len(self.prompt_times):
            when = self.prompt_times[number]
        self.current = TurnDraft(
            turn_id=f"{self.agent}:{self.task}:{number}",
            session_id=self.task,
            project=self.project,
            asked=asked,
            asked_at=when or task.epoch_ms(self.task) or file_time(self.path),
        )

    def fold(self, child: str, turn: TurnDraft) -> None:
        """The sub-task `child` (a task folder beside this one) into `turn`, once."""
        folder = self.folder.parent / child
        history = folder / HISTORY
        if child in self.folded or child == self.task or not history.is_file():
            return
        self.folded.add(child)
        task.fold(turn, _Reader(self.agent, history, self.depth + 1).run().turns)

    @staticmethod
    def human_text(texts: list[str]) -> str | None:
        text = "\n\n".join(texts)
        for pattern in HUMAN:
            found = pattern.search(text)
            if found and found.group(1).strip():
                return found.group(1).strip()
        return None

    def tool_results(self, message: dict[str, Any], text: str) -> None:
        if self.current is None:
            return
        for error in ERROR.findall(text):
            self.current.failed(error)
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                for child in task.SUBTASK_DONE.findall("\n".join(_texts(block))):
                    self.fold(child, self.current)
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and block.get("is_error")
            ):
                self.current.failed("\n".join(_texts(block)) or str(block.get("content")))

    def assistant(self, message: dict[str, Any]) -> None:
        turn = self.current
        assert turn is not None
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                self.text(block["text"], turn)
            elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                args = block.get("input")
                self.call(block["name"], args if isinstance(args, dict) else {}, turn)

    def text(self, text: str, turn: TurnDraft) -> None:
        text = THINKING.sub("", text)
        said: list[str] = []
        end = 0
        for call in XML_CALL.finditer(text):
            said.append(text[end : call.start()])
            end = call.end()
            args = {key: value for key, value in XML_PARAM.findall(call.group(2))}
            self.call(call.group(1), args, turn, said)
        said.append(text[end:])
        turn.say("".join(said))

    def call(
        self, name: str, args: dict[str, Any], turn: TurnDraft, said: list[str] | None = None
    ) -> None:
        if name == "use_mcp_tool":
            server, tool = args.get("server_name"), args.get("tool_name")
            if isinstance(server, str) and isinstance(tool, str):
                turn.use_tool(f"mcp__{server}__{tool}")
        for key, value in args.items():
            if key == "args" and isinstance(value, str):  # Roo's <args><file><path>…
                for path in XML_PATH.findall(value) if name in KINDS.read else []:
                    turn.touch(path)
        apply_call(turn, name, args, KINDS)
        if name == "new_task":
            if self.launched < len(self.children):
                self.fold(self.children[self.launched], turn)
            self.launched += 1
        spoken = args.get(SAID.get(name, ""))
        if isinstance(spoken, str):
            if said is None:
                turn.say(spoken)
            else:
                said.append("\n\n" + spoken + "\n\n")

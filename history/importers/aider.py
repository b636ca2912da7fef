"""Aider chat logs: `.aider.chat.history.md` in the directory aider ran in.

`# aider chat started at <local time>` opens a session; consecutive `#### ` lines form one
prompt; `> ` lines are aider's own output; everything else is the assistant's reply. Not
prompts: answers to aider's yes/no questions (`#### Add file to the chat? ... [Yes]: all`),
slash commands other than /ask, /code, /architect, /context with a message (e.g. /add, /undo,
/exit, invalid ones), and `!` shell commands. Valid commands and the files they bring in count
toward the next prompt's tools and files.
A watch-files request (`> Processing your request...`, triggered by an `AI!` comment in a
file) opens a turn too; its text is the `#### ` block that may follow, or WATCH_REQUEST.

Aider logs no per-message times: every turn carries its session's start time, read as the
importing machine's local time. The project is the directory holding the history file.
files: SEARCH/REPLACE targets, files added to the chat, `> Running` shell commands' paths;
edited: files in `Applied edit to` lines and paths edited by shell commands.
The answer is every reply of the turn, in order (a reply after aider's own output continues
it). The work: the commands aider ran (`> Running`, `!` and `/run`), aider's error lines (model
and API errors, edits that failed to match; aider logs no command output), and each
SEARCH/REPLACE block's REPLACE lines as an edit of its file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from history.importers.base import (
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    open_lines,
    relativize,
)

HISTORY_NAME = ".aider.chat.history.md"
WATCH_REQUEST = "(a request written as an AI comment in a watched file)"
PROCESSING = "Processing your request..."
PROMPT_COMMANDS = frozenset({"/ask", "/code", "/architect", "/context"})
STARTED = re.compile(r"^# aider chat started at (.+?)\s*$")
CONFIRM = re.compile(r"\? \(Y\)es/\(N\)o.*\]: ")
ADDED = re.compile(r"^Added (?!\d+ lines of output)(.+?) to the chat( \(read-only\))?\.?$")
APPLIED = re.compile(r"^Applied edit to (.+)$")
RUNNING = re.compile(r"^Running (.+)$")
ADD_ASKED = re.compile(r"^Add file to the chat\? .*\]: (.*)$")
FAILED = re.compile(r"SEARCH/REPLACE blocks? failed to match")
ERROR = re.compile(
    r"^(?:[\w.]*(?:Error|Exception)\b|Traceback \(most recent call last\))"
    r"|failed to match|did not conform to the edit format|: file not found error$"
)
# Lines closing aider's multi-line "failed to match" message, which has no "> " prefix.
ECHO_TAIL = ("The SEARCH section must", "# The other", "Don't re-send", "Just reply with fixed")


class Aider(TranscriptFormat):
    name = "aider"

    def default_root(self) -> Path:
        return Path.cwd()

    def candidate_roots(self, places: Places) -> list[Path]:
        """Aider writes its history in the folder it runs in: the current one, and the home
        folder (where a quick `aider` is often started)."""
        return list(dict.fromkeys([Path.cwd(), places.home]))

    def claims(self, path: Path) -> bool:
        return path.name.endswith(HISTORY_NAME)

    def discover(self, root: Path) -> Iterator[Path]:
        """The history file itself, or history files in `root` and its direct subfolders."""
        if root.is_file():
            yield root
        elif root.is_dir():
            found = [*root.glob(f"*{HISTORY_NAME}"), *root.glob(f"*/*{HISTORY_NAME}")]
            yield from sorted(path for path in found if path.is_file())

    def read(self, path: Path) -> ReadReport:
        return _Reader(path).run()


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.project = str(path.resolve().parent)
        self.report = ReadReport()
        self.session_id = ""
        self.sessions = self.turns = 0
        self.started = file_time(path)
        self.current: TurnDraft | None = None
        self.pending = self.draft("", "")  # what commands bring in before the next prompt
        self.prompt: list[str] = []
        self.reply: list[str] = []
        self.before = ["", ""]  # the two lines before this one
        self.echo = ""  # "", "body" or "tail" of a "failed to match" message
        self.after_tool = self.continued = self.thinking = False
        self.asked_file = ""
        self.recent_adds: list[str] = []
        self.block: str | None = None  # the file of the SEARCH/REPLACE block being read
        self.replacing: list[str] | None = None  # its REPLACE lines so far
        self.searching: list[str] = []  # its SEARCH lines

    def draft(self, turn_id: str, asked: str) -> TurnDraft:
        return TurnDraft(turn_id, self.session_id, self.project, asked, self.started)

    def run(self) -> ReadReport:
        for raw in open_lines(self.path, self.report):
            self.line(raw.rstrip())
        self.end_prompt()
        self.flush_adds()
        self.close()
        return self.report

    def line(self, line: str) -> None:
        if line.startswith("####") and line[4:5] in ("", " "):
            self.prompt.append(line[5:])
            return
        self.end_prompt()
        tool = line[2:] if line == ">" or line.startswith("> ") else None
        if tool is None or not (tool == PROCESSING or ADDED.match(tool)):
            self.flush_adds()
        if match := STARTED.match(line):
            self.close()
            self.new_session(match.group(1))
        elif not self.session_id:
            self.report.skipped += bool(line)
        elif line.startswith("<thinking-content-") or self.thinking:
            self.thinking = not line.startswith("</thinking-content-")
        elif tool is not None:
            self.tool_line(tool)
        elif self.echo == "body":
            self.echo = "tail" if line.startswith(ECHO_TAIL[0]) else "body"
        elif self.echo == "tail" and (not line or line.startswith((*ECHO_TAIL, "## Search"))):
            self.echo = "body" if line.startswith("## Search") else "tail"
        elif self.continued and line and not self.echo:
            pass  # aider prefixes only the first line of a multi-line message with "> "
        else:
            self.echo, self.continued = "", False
            self.reply_line(line)
        self.before = [self.before[1], line]

    def new_session(self, stamp: str) -> None:
        self.sessions += 1
        seed = f"{self.path.resolve()}\n{stamp}\n{self.sessions}"
        self.session_id = hashlib.sha256(seed.encode()).hexdigest()[:16]
        try:
            self.started = datetime.fromisoformat(stamp).astimezone(UTC)
        except ValueError:
            self.started = file_time(self.path)
        self.pending = self.draft("", "")
        self.turns = 0
        self.echo, self.after_tool, self.continued, self.thinking = "", False, False, False

    def end_prompt(self) -> None:
        lines, self.prompt = self.prompt, []
        text = "\n".join(part.rstrip() for part in lines).strip()
        if not text or not self.session_id or (len(lines) == 1 and CONFIRM.search(text)):
            return
        word = text.split(maxsplit=1)[0]
        if text.startswith("!") or (
            text.startswith("/") and (word not in PROMPT_COMMANDS or text == word)
        ):
            self.close()
            self.pending.use_tool("/run" if text.startswith("!") else word)
            if text.startswith("!") or word == "/run":
                self.pending.run_shell(text.removeprefix("!").removeprefix("/run"))
        elif self.current is not None and self.current.asked == WATCH_REQUEST and not self.reply:
            self.current.asked = text
        else:
            self.open_turn(text)

    def open_turn(self, asked: str) -> None:
        self.close()
        turn, self.pending = self.pending, self.draft("", "")
        turn.turn_id, turn.asked = f"aider:{self.session_id}:{self.turns}", asked
        self.current, self.turns = turn, self.turns + 1
        self.flush_adds()

    def close(self) -> None:
        if self.current is not None:
            self.current.say("\n".join(self.reply))
            self.report.turns.append(self.current.finish())
        self.current, self.reply, self.after_tool, self.thinking = None, [], False, False
        self.block = self.replacing = None

    def flush_adds(self) -> None:
        for path in self.recent_adds:
            (self.current or self.pending).touch(path)
        self.recent_adds = []

    def tool_line(self, text: str) -> None:
        target = self.current or self.pending
        self.after_tool = self.continued = True
        self.echo = "body" if FAILED.search(text) else ""
        if ERROR.search(text):
            target.failed(text)
        if text == PROCESSING:
            self.open_turn(WATCH_REQUEST)
        elif match := ADDED.match(text):
            self.recent_adds.append(match.group(1))
        elif match := APPLIED.match(text):
            target.use_tool("edit")
            target.touch(match.group(1), edit=True)
        elif match := RUNNING.match(text):
            target.use_tool("shell")
            target.run_shell(match.group(1))
        elif text.startswith("Invalid command: "):
            target.tools.pop(text.removeprefix("Invalid command: ").strip(), None)
        elif match := ADD_ASKED.match(text):
            if match.group(1).lower().startswith(("y", "a")):
                target.touch(self.asked_file)
        elif "(Y)es/(N)o" not in text:
            self.asked_file = text

    def reply_line(self, line: str) -> None:
        if self.current is None:
            return
        if line == "<<<<<<< SEARCH":
            name = self.before[0] if self.before[1].startswith("```") else self.before[1]
            name = name.strip().strip("`*:#").strip()
            self.block, self.replacing, self.searching = None, None, []
            if name and not any(char.isspace() for char in name):
                self.current.touch(name)
                self.current.use_tool("edit")
                self.block = name
        elif self.block is not None:
            self.block_line(line, self.current)
        if line and self.after_tool:
            self.current.say("\n".join(self.reply))  # a reply after aider's output goes on
            self.reply, self.after_tool = [], False
        if line or self.reply:
            self.reply.append(line)

    def block_line(self, line: str, turn: TurnDraft) -> None:
        """A line inside a SEARCH/REPLACE block: the REPLACE part is the edit's added text, the
        SEARCH part the text it removed."""
        if self.replacing is None:
            if line == "=======":
                self.replacing = []
            else:
                self.searching.append(line)
        elif line.startswith(">>>>>>> REPLACE") and self.block is not None:
            path = relativize(self.block, self.project)
            turn.work.edit(path, self.replacing, self.searching)
            self.block, self.replacing, self.searching = None, None, []
        else:
            self.replacing.append(line)

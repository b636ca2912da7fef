"""The shape every transcript parser returns, and the bookkeeping they share.

Paths: a path is kept as the agent named it, except that an absolute path lying under the
turn's project (its cwd) loses that prefix, so `/repo/src/a.py` in project `/repo` becomes
`src/a.py`, and Windows separators become `/` (aider on Windows names one file both ways).
Relative paths are not resolved against any working directory.
"""

from __future__ import annotations

import json
import os
import platform
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any

from history.domain import Turn
from history.importers.shell import patch_paths, shell_facts
from history.importers.whole import WorkLog, join_answers, patch_changes

# Tools whose output is web content or other input nobody vetted. A turn that used one is
# `tainted`. "/web" is aider's page-scraping command; "web_search" is Codex's built-in search.
TAINTING_TOOLS = frozenset({"WebFetch", "WebSearch", "web_search", "web_fetch", "fetch", "/web"})
# An MCP tool (named `mcp__server__tool` or `server__tool`) taints when its name has one of
# these words: fetch servers, browsers and scrapers return pages from the open web.
TAINTING_MCP_WORDS = ("fetch", "browser", "browse", "navigate", "scrape", "crawl", "web")


def is_tainting_tool(name: str) -> bool:
    if name in TAINTING_TOOLS:
        return True
    lowered = name.lower()
    return "__" in lowered and any(word in lowered for word in TAINTING_MCP_WORDS)


# A reader's turn is a turn as it was said: `record_many` prepares it (redacts, caps) to store.
ImportedTurn = Turn


@dataclass
class ReadReport:
    turns: list[ImportedTurn] = field(default_factory=list)
    lines: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Places:
    """Where to look for an agent's store: a home folder, the environment, and the system
    (`platform.system()`: "Linux", "Darwin", "Windows"), so a test can lay out any of them."""

    home: Path
    env: Mapping[str, str]
    system: str

    @classmethod
    def here(cls) -> Places:
        return cls(Path.home(), os.environ, platform.system())


class TranscriptFormat(ABC):
    name: str

    @abstractmethod
    def default_root(self) -> Path: ...

    def candidate_roots(self, places: Places) -> list[Path]:
        """Every folder or file where this agent may keep its sessions on `places`' system,
        the likeliest first (`recall import auto` and `--list` look in each)."""
        if places.home == Path.home():
            return [self.default_root()]
        return [places.home / self.default_root().relative_to(Path.home())]

    @abstractmethod
    def discover(self, root: Path) -> Iterator[Path]: ...

    def claims(self, path: Path) -> bool:
        """Whether `path` is a file this agent writes (read from its name and first lines),
        so `recall import auto PATH` reads each file as the format it is written in."""
        return False

    def sessions_in(self, path: Path) -> int:
        """How many sessions a file `discover` found holds (`recall import --list`)."""
        return 1

    @abstractmethod
    def read(self, path: Path) -> ReadReport: ...


def relativize(path: str, project: str) -> str:
    """`path` less the `project` prefix when it lies under it, with `/` for `\\` separators."""
    path, base = _slashes(path), _slashes(project).rstrip("/")
    if base and path.startswith(base + "/"):
        return path[len(base) + 1 :] or path
    return path


def _slashes(path: str) -> str:
    # A POSIX absolute path keeps any backslash; elsewhere it is a Windows separator.
    return path if path.startswith("/") else path.replace("\\", "/")


def parse_timestamp(value: object) -> datetime | None:
    """An ISO-8601 timestamp as an aware UTC datetime; naive ones are taken to be UTC."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


@dataclass
class TurnDraft:
    """A turn being assembled while its transcript streams past."""

    turn_id: str
    session_id: str
    project: str
    asked: str
    asked_at: datetime
    answers: list[str] = field(default_factory=list)
    files: dict[str, None] = field(default_factory=dict)
    edited: dict[str, None] = field(default_factory=dict)
    tools: dict[str, None] = field(default_factory=dict)
    tainted: bool = False
    work: WorkLog = field(default_factory=WorkLog)

    def say(self, text: str) -> None:
        """One more text of the assistant's answer (every one is kept, in order)."""
        if text and text.strip():
            self.answers.append(text.strip())

    def use_tool(self, name: str) -> None:
        self.tools[name] = None
        self.tainted = self.tainted or is_tainting_tool(name)

    def touch(self, path: str, *, edit: bool = False) -> None:
        path = relativize(path.strip(), self.project)
        if not path:
            return
        self.files[path] = None
        if edit:
            self.edited[path] = None

    def run_shell(self, script: str) -> None:
        self.work.ran(script)
        facts = shell_facts(script)
        for path in facts.read:
            self.touch(path)
        for path in facts.edited:
            self.touch(path, edit=True)
        self.tainted = self.tainted or facts.tainted

    def apply_patch(self, text: str) -> None:
        for path in patch_paths(text):
            self.touch(path, edit=True)
        for path, added, removed in patch_changes(text):
            self.work.edit(relativize(path, self.project), added, removed)

    def write_file(self, path: str, added: str, removed: str = "") -> None:
        """An edit whose written text is known (a new file's content, a replacement), and the
        text it replaced when the agent's log says."""
        self.touch(path, edit=True)
        self.work.edit(relativize(path.strip(), self.project), added, removed)

    def failed(self, output: str) -> None:
        """A tool result that reported an error: its first lines join the work."""
        self.work.failed(output)

    def finish(self) -> ImportedTurn:
        return ImportedTurn(
            turn_id=self.turn_id,
            session_id=self.session_id,
            project=self.project,
            asked=self.asked,
            answered=join_answers(self.answers),
            files=tuple(self.files),
            edited=tuple(self.edited),
            tools=tuple(self.tools),
            tainted=self.tainted,
            asked_at=self.asked_at,
            work=self.work.text(),
        )


class DraftReader:
    """What the per-file JSONL readers share: the report they fill and the turn in progress."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.report = ReadReport()
        self.current: TurnDraft | None = None

    def close(self) -> None:
        """Finish the turn being drafted, if there is one."""
        if self.current is not None:
            self.report.turns.append(self.current.finish())
        self.current = None

    def count_unknown(self, unknown: int) -> None:
        if unknown:
            self.report.skipped += unknown
            self.report.problems.append(
                f"{unknown} line(s) in {self.path.name} had a type this reader does not know."
            )


def open_lines(path: Path, report: ReadReport) -> Iterator[str]:
    """The file's lines, streamed; an unreadable file becomes a problem sentence."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                report.lines += 1
                yield line
    except OSError as error:
        report.problems.append(f"Could not read {path}: {error.strerror or 'unreadable'}.")


def json_objects(path: Path, report: ReadReport) -> Iterator[dict[str, Any]]:
    """Each JSONL line that holds an object; blank lines are ignored, others are skipped."""
    bad = 0
    for line in open_lines(path, report):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if isinstance(value, dict):
            yield value
        else:
            bad += 1
    if bad:
        report.skipped += bad
        report.problems.append(f"{bad} line(s) in {path.name} were not JSON objects.")


def file_time(path: Path) -> datetime:
    """Fallback time for a prompt that carries none: the file's modification time."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return datetime.fromtimestamp(0, UTC)


def sorted_files(root: Path, pattern: str) -> Iterator[Path]:
    if root.is_file():
        yield root
    elif root.is_dir():
        yield from sorted(p for p in root.rglob(pattern) if p.is_file())


def first_records(path: Path, count: int = 20) -> Iterator[dict[str, Any]]:
    """A JSONL file's first `count` objects (none for a file of another suffix): what a
    format's `claims` reads to tell its files from another agent's."""
    if path.suffix != ".jsonl":
        return iter(())
    return islice(json_objects(path, ReadReport()), count)

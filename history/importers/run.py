"""Transcripts of other agents into the index, once or again (`recall import`) and live
(`recall hook`). A bad file is counted and reported, never the end of an import, and what was
recorded stays. Turns reach `record_many` in batches: memory holds one batch, never every turn.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from history.i18n import Messages, grouped
from history.importers import FORMATS, ImportedTurn, TranscriptFormat
from history.importers.auto import owner
from history.importers.base import Places
from history.importers.whole import join_answers
from history.prepare import RecordCounts, TurnFields

if TYPE_CHECKING:
    from rich.progress import Progress

log = logging.getLogger(__name__)
ENGLISH = Messages("cli")  # the summary is worded in the CLI's messages, English by default

# Turns per `record_many` transaction. Measured on 600 corpus files: a transaction per file took
# 1.55 s, batches of 100..100,000 turns 0.93..1.02 s; 500 keeps the write lock short.
BATCH_TURNS = 500
MAX_PROBLEMS = 20  # problem sentences kept; the rest are only counted
PROGRESS_FILES, PROGRESS_SECONDS = 20, 0.5  # more files, or longer work, shows a progress bar
TURN_COUNTS = ("new", "updated", "unchanged", "forgotten", "failed")


class TurnSink(Protocol):
    """Where an import's turns go: the index, or a team's service (history.remote)."""

    def record_many(
        self, turns: Iterable[TurnFields], include_forgotten: bool = False
    ) -> RecordCounts: ...


@dataclass
class ImportSummary:
    files: int = 0  # files read
    unreadable: int = 0  # files that could not be opened, or that crashed their reader
    sessions: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    forgotten: int = 0  # turns of forgotten sessions, left out
    failed: int = 0  # turns the index could not write
    lines: int = 0
    skipped: int = 0  # malformed lines and lines of unknown types
    other_format: int = 0  # files another agent wrote, passed over
    problems: list[str] = field(default_factory=list)  # short sentences, no transcript text
    problems_left_out: int = 0
    roots: list[str] = field(default_factory=list)  # where transcripts were looked for

    def note(self, problem: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)
        else:
            self.problems_left_out += 1

    def add(self, counts: RecordCounts) -> None:
        for name in TURN_COUNTS:
            setattr(self, name, getattr(self, name) + getattr(counts, name))

    def as_dict(self) -> dict[str, Any]:
        more = [f"... and {self.problems_left_out} more."] if self.problems_left_out else []
        return {
            "files": self.files,
            "unreadable_files": self.unreadable,
            "sessions": self.sessions,
            "turns": {name: getattr(self, name) for name in TURN_COUNTS},
            "lines": self.lines,
            "skipped_lines": self.skipped,
            "other_format_files": self.other_format,
            "problems": [*self.problems, *more],
            "roots": self.roots,
        }

    def sentence(self, _: Messages = ENGLISH) -> str:
        """The one-line human summary, in the language of `_` (the CLI's messages)."""
        if not self.files and not self.unreadable:
            places = ", ".join(self.roots) or _("the usual places")
            found = _("No transcripts found in {places}", places=places)
            return _("; ").join([found, *self._passed_over(_)]) + _(".")
        number = partial(grouped, language=_.language)
        parts = [
            _(
                "Read {files} ({sessions}, {lines}, {skipped} skipped): {new} turns new, "
                "{updated} updated, {unchanged} unchanged",
                files=_files(self.files, _),
                sessions=_.ngettext(
                    "{count} session",
                    "{count} sessions",
                    self.sessions,
                    count=number(self.sessions),
                ),
                lines=_.ngettext(
                    "{count} line", "{count} lines", self.lines, count=number(self.lines)
                ),
                skipped=number(self.skipped),
                new=number(self.new),
                updated=number(self.updated),
                unchanged=number(self.unchanged),
            )
        ]
        if self.forgotten:
            parts.append(
                _("{turns} of forgotten sessions left out", turns=_turns(self.forgotten, _))
            )
        if self.failed:
            parts.append(_("{turns} could not be recorded", turns=_turns(self.failed, _)))
        if self.unreadable:
            parts.append(_("{files} unreadable", files=_files(self.unreadable, _)))
        parts += self._passed_over(_)
        return _("; ").join(parts) + _(".")

    def _passed_over(self, _: Messages) -> list[str]:
        if not self.other_format:
            return []
        return [
            _(
                "{files} of another agent passed over (`recall import auto` reads every format)",
                files=_files(self.other_format, _),
            )
        ]


def _files(count: int, said: Messages) -> str:
    return said.ngettext(
        "{count} file", "{count} files", count, count=grouped(count, said.language)
    )


def _turns(count: int, said: Messages) -> str:
    return said.ngettext(
        "{count} turn", "{count} turns", count, count=grouped(count, said.language)
    )


class _Run:
    """One import: reads files, hands their turns to `record_many` in batches, counts."""

    def __init__(self, index: TurnSink, include_forgotten: bool, summary: ImportSummary):
        self.index, self.include_forgotten, self.summary = index, include_forgotten, summary
        self.pending: list[ImportedTurn] = []
        self.sessions: set[str] = set()

    def read(self, fmt: TranscriptFormat, path: Path, hook: dict[str, Any] | None = None) -> None:
        try:
            path.open("rb").close()
            report = fmt.read(path)
        except Exception as error:  # unreadable, or a reader's bug: never the end of an import
            why = error.strerror if isinstance(error, OSError) else None
            self.summary.unreadable += 1
            self.summary.note(f"Could not read {path}: {why or type(error).__name__}.")
            return
        turns = report.turns if hook is None else _hook_turns(hook, report.turns)
        self.summary.files += 1
        self.summary.lines += report.lines
        self.summary.skipped += report.skipped
        for problem in report.problems:
            self.summary.note(problem)
        self.sessions.update(turn.session_id for turn in turns)
        self.summary.sessions = len(self.sessions)
        self.pending.extend(turns)
        if len(self.pending) >= BATCH_TURNS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.summary.add(self.index.record_many(self.pending, self.include_forgotten))
            self.pending = []


def import_transcripts(
    index: TurnSink,
    formats: Sequence[TranscriptFormat],
    root: Path | None,
    include_forgotten: bool = False,
    progress: bool = False,
    places: Places | None = None,
) -> ImportSummary:
    """Import every transcript of `formats` under `root` (None: each format's places on
    `places`, this machine by default)."""
    summary = ImportSummary()
    plan = _plan(formats, root, summary, places or Places.here())
    run, bar = _Run(index, include_forgotten, summary), _Bar(progress, len(plan))
    try:
        for fmt, path in plan:
            bar.step(path)
            run.read(fmt, path)
        run.flush()
    finally:
        bar.close()
    return summary


def _plan(
    formats: Sequence[TranscriptFormat],
    root: Path | None,
    summary: ImportSummary,
    places: Places,
) -> list[tuple[TranscriptFormat, Path]]:
    """Each file once, with its format. A file goes to the format that claims it, and stays
    out if that format passed it over (a Claude Code sub-agent file is no Codex rollout); a
    file of a format this import does not read is passed over and counted."""
    claims: dict[Path, list[TranscriptFormat]] = {}
    for fmt in formats:
        for where in [root] if root is not None else fmt.candidate_roots(places):
            summary.roots += [str(where)] if str(where) not in summary.roots else []
            try:
                for path in fmt.discover(where):
                    claims.setdefault(path, []).append(fmt)
            except OSError as error:
                summary.note(f"Could not list {where}: {error.strerror or type(error).__name__}.")
    plan = []
    requested = {fmt.name for fmt in formats}
    for path, claimants in claims.items():
        writer = owner(path, FORMATS.values())
        claimant = next((fmt for fmt in claimants if writer and fmt.name == writer.name), None)
        if writer is None or claimant is not None:
            plan.append((claimant or claimants[0], path))
        elif writer.name not in requested:  # another agent's transcript: not this import's
            summary.other_format += 1
    return plan


class _Bar:
    """A transient rich progress bar on stderr, once there is more than a moment of work."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.enabled, self.total, self.done, self.started = enabled, total, 0, time.monotonic()
        self.progress: Progress | None = None

    def step(self, path: Path) -> None:
        slow = time.monotonic() - self.started > PROGRESS_SECONDS
        if self.enabled and self.progress is None and (self.total > PROGRESS_FILES or slow):
            from rich.console import Console
            from rich.progress import Progress

            console = Console(stderr=True)
            self.enabled = console.is_terminal  # never into a pipe or a file
            if self.enabled:
                self.progress = Progress(console=console, transient=True)
                self.task = self.progress.add_task("import", total=self.total, completed=self.done)
                self.progress.start()
        if self.progress is not None:
            self.progress.update(self.task, completed=self.done, description=path.name[:40])
        self.done += 1

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def import_hook(
    index: TurnSink, payload_text: str, agent: str = "claude-code", places: Places | None = None
) -> ImportSummary | None:
    """Import the one transcript an agent's hook names (history.importers.hooks: `agent` is one
    of HOOK_AGENTS, `payload_text` the JSON it hands over). Bad input: None and a log line."""
    from history.importers.hooks import hook_call

    try:
        payload = json.loads(payload_text)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        log.warning("hook input is not a JSON object; nothing imported")
        return None
    call = hook_call(agent, payload, places or Places.here())
    if call is None:
        log.warning("the hook names no transcript that exists; nothing imported")
        return None
    summary = ImportSummary(roots=[str(call.transcript)])
    run = _Run(index, False, summary)
    run.read(call.fmt, call.transcript, hook=call.facts)
    run.flush()
    return summary


def _hook_turns(hook: dict[str, Any], turns: list[ImportedTurn]) -> list[ImportedTurn]:
    """The hook's facts fill gaps: its cwd for a turn with no project, and on Stop its
    `last_assistant_message` as the last text of the last turn's answer when the transcript
    does not hold it yet (Stop may fire before the file has that message). The transcript's
    whole answer stays, so a later import of the grown file gives the same answer."""
    cwd = hook.get("cwd")
    if isinstance(cwd, str) and cwd:
        turns = [turn if turn.project else replace(turn, project=cwd) for turn in turns]
    last, session = hook.get("last_assistant_message"), hook.get("session_id")
    stop = hook.get("hook_event_name") == "Stop" and isinstance(last, str) and last.strip()
    if stop and turns and session in (None, turns[-1].session_id):
        said, text = turns[-1].answered, str(last).strip()
        if text not in said:
            turns[-1] = replace(turns[-1], answered=join_answers([said, text]))
    return turns

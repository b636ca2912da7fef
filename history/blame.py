"""From a file, or a line of it, to the turns that wrote it: what every face of `blame` shows.

`file_turns`: the turns that edited the file (and, asked, those that only read it), newest
first, each with the lines its edits of the file added and those they removed (where the agent's
log says). `line_origins`: for each line of the file as it is now, the turn that wrote it, and
how sure that is:

- "exact text": the line, whitespace-trimmed, is one an edit of the file added (the latest
  such turn wins; in git, the latest before the commit that last changed the line);
- "same commit": git blame names the commit, and the turn is the latest that edited the file
  before it, with no other commit of the file between them;
- "nearest in time": as "same commit", but other commits of the file came between.

A line no turn wrote (no text matches, and no turn edited the file before its commit) has no
turn, and says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from history import blame_git, blame_paths
from history.blame_paths import Target
from history.domain import Turn

if TYPE_CHECKING:
    from history.index import HistoryIndex

Sureness = Literal["exact text", "same commit", "nearest in time"]
# The turns a blame reads whole at most (their work, for the lines they added).
MOST_TURNS = 500


@dataclass(frozen=True)
class FileTurn:
    turn: Turn
    name: str  # the file's name as this turn recorded it
    edited: bool
    added: tuple[str, ...]  # the lines its edits of the file added, in order
    removed: tuple[str, ...] = ()  # the lines they removed, where the agent's log says


@dataclass(frozen=True)
class LineOrigin:
    number: int
    text: str
    origin: FileTurn | None
    how: tuple[Sureness, ...]  # empty when no turn wrote the line
    commit: blame_git.Commit | None


def find(
    index: HistoryIndex, path: str, cwd: str | os.PathLike[str], follow: bool = False
) -> Target:
    """The file `path` names (from `cwd`), relative to the longest project holding it; with
    `follow`, with the names git knows it had before."""
    where = blame_paths.absolute(path, cwd)
    earlier: list[Path] = []
    if follow and (root := blame_git.top_level(where)) is not None:
        earlier = blame_git.earlier_names(root, where)
    return blame_paths.target(path, cwd, [p.project for p in index.projects()], earlier)


def _absolute_names(target: Target) -> set[str]:
    if target.project is None:
        return set(target.names)
    return {(Path(target.project) / name).as_posix() for name in target.names}


def file_turns(
    index: HistoryIndex, target: Target, read: bool = False, most: int = MOST_TURNS
) -> list[FileTurn]:
    """The turns that edited the file (with `read`, also those that only read it), newest
    first, at most `most`."""
    relative = set(target.names) if target.project is not None else set()
    absolute = _absolute_names(target)
    found: dict[int, tuple[str, bool]] = {}
    order: dict[int, tuple[datetime, int]] = {}
    searches = [(name, target.project) for name in relative] + [(name, None) for name in absolute]
    for name, scope in searches:
        for candidate in index.file_candidates(name, scope):
            if candidate.id in found:
                continue
            match = _recorded(
                candidate.project, candidate.edited, relative, absolute, target.project
            )
            if match is None and read:
                match = _recorded(
                    candidate.project, candidate.files, relative, absolute, target.project
                )
                edited = False
            else:
                edited = True
            if match is not None:
                found[candidate.id] = (match, edited)
                order[candidate.id] = (candidate.asked_at, candidate.id)
    newest = sorted(found, key=lambda row: order[row], reverse=True)[:most]
    turns = index.turns_by_row(newest)
    kept = []
    for row in newest:
        if row not in turns:
            continue  # forgotten since
        name, edited = found[row]
        added, removed = _changes(turns[row], set(target.names) | absolute) if edited else ((), ())
        kept.append(FileTurn(turns[row], name, edited, added, removed))
    return kept


def _recorded(
    project: str, stored: str, relative: set[str], absolute: set[str], wanted: str | None
) -> str | None:
    """The name, among a turn's stored paths (a JSON list), that is the file, if one is."""

    if stored == "[]":
        return None
    for recorded in json.loads(stored):
        name = blame_paths.recorded_as(recorded, project)
        if name in absolute or (project == wanted and name in relative):
            return name
    return None


def _changes(turn: Turn, names: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The lines the turn's edits of the file added, and those they removed."""
    # Imported when a blame runs: every tool's import (a `recall search`) would load the
    # importers otherwise (tests/e2e/test_cold_start.py).
    from history.importers.whole import edits

    added: list[str] = []
    removed: list[str] = []
    for edit in edits(turn.work):
        if blame_paths.recorded_as(edit.path, turn.project) in names:
            added.extend(edit.added)
            removed.extend(edit.removed)
    return tuple(added), tuple(removed)


def _same_text(line: str, added: str) -> bool:
    """`added` (as the work log holds it: clipped at LINE_CHARS) is `line`, both trimmed."""
    from history.importers.whole import LINE_CHARS

    wanted, held = line.strip(), added.strip()
    if len(added) >= LINE_CHARS and added.endswith("…"):
        return bool(held[:-1]) and wanted.startswith(held[:-1].rstrip())
    return wanted == held


def line_origins(
    target: Target, turns: Sequence[FileTurn], lines: Sequence[str], first: int, follow: bool
) -> list[LineOrigin]:
    """Who wrote each of `lines` (the file's lines `first`.. as they are now)."""
    editors = [turn for turn in turns if turn.edited]  # newest first
    last = first + len(lines) - 1
    root = blame_git.top_level(target.absolute)
    blamed: dict[int, blame_git.Commit] = {}
    history: list[blame_git.Commit] = []
    if root and lines:
        blamed, history = blame_git.blame_and_commits(root, target.absolute, first, last, follow)
    origins = []
    for number, line in enumerate(lines, first):
        commit = blamed.get(number)
        by_text = None
        if line.strip():
            # A turn after the line's commit did not write it (it wrote the same text again).
            before = [
                t for t in editors if commit is None or t.turn.asked_at <= commit.committed_at
            ]
            by_text = next((t for t in before if any(_same_text(line, a) for a in t.added)), None)
        by_commit, how_commit = _by_commit(editors, commit, history)
        if by_text is not None:
            how: tuple[Sureness, ...] = ("exact text",)
            if by_commit is by_text and how_commit == "same commit":
                how += ("same commit",)
            origins.append(LineOrigin(number, line, by_text, how, commit))
        elif by_commit is not None and how_commit is not None:
            origins.append(LineOrigin(number, line, by_commit, (how_commit,), commit))
        else:
            origins.append(LineOrigin(number, line, None, (), commit))
    return origins


def _by_commit(
    editors: Sequence[FileTurn],
    commit: blame_git.Commit | None,
    history: Sequence[blame_git.Commit],
) -> tuple[FileTurn | None, Sureness | None]:
    """The latest turn that edited the file before `commit`, and whether the commit is the
    first of the file after it."""
    if commit is None:
        return None, None
    before = [t for t in editors if t.turn.asked_at <= commit.committed_at]
    if not before:
        return None, None
    turn = max(before, key=lambda t: t.turn.asked_at)
    between = [
        c
        for c in history
        if c.sha != commit.sha and turn.turn.asked_at <= c.committed_at < commit.committed_at
    ]
    return turn, "nearest in time" if between else "same commit"


class PastTheEnd(ValueError):
    """A line asked for that the file does not have: it has `lines` lines."""

    def __init__(self, lines: int) -> None:
        super().__init__(lines)
        self.lines = lines


def current_lines(target: Target, first: int, last: int) -> list[str]:
    """The file's lines `first` to `last` as they are now (fewer at its end); raises OSError
    when it cannot be read, PastTheEnd when it has fewer than `first` lines."""
    text = target.absolute.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    if first > len(lines):
        raise PastTheEnd(len(lines))
    return lines[first - 1 : last]

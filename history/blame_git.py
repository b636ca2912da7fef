"""What git knows of a file, for `recall blame`: its earlier names, its commits, and the commit
that last changed each line. Outside a repository, or when git is missing or fails, each
answer is empty: a blame without git still has the turns' own text to go by."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

GIT_SECONDS = 20
# The id git blame gives a line not committed yet.
NOT_COMMITTED = "0" * 40


@dataclass(frozen=True)
class Commit:
    sha: str
    committed_at: datetime


def _git(directory: Path, *arguments: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), *arguments],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def top_level(path: Path) -> Path | None:
    """The work tree holding `path`, if it is in one."""
    directory = path if path.is_dir() else path.parent
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    found = _git(directory, "rev-parse", "--show-toplevel")
    return Path(found.strip()).resolve() if found and found.strip() else None


def earlier_names(root: Path, path: Path) -> list[Path]:
    """The paths the file had before, as git follows its renames, the latest first."""
    relative = path.relative_to(root).as_posix()
    log = _git(root, "log", "--follow", "--name-status", "--format=", "--", relative)
    names: dict[Path, None] = {}
    for line in (log or "").splitlines():
        parts = line.split("\t")
        if parts[0].startswith(("R", "C")) and len(parts) == 3:
            names.setdefault(root / parts[1], None)
    names.pop(path, None)
    return list(names)


def commits(root: Path, path: Path, follow: bool) -> list[Commit]:
    """The commits that changed the file, the newest first."""
    relative = path.relative_to(root).as_posix()
    options = ["--follow"] if follow else []
    log = _git(root, "log", *options, "--format=%H %ct", "--", relative)
    found = []
    for line in (log or "").splitlines():
        sha, _, stamp = line.partition(" ")
        if stamp.isdigit():
            found.append(Commit(sha, datetime.fromtimestamp(int(stamp), UTC)))
    return found


def blame(root: Path, path: Path, first: int, last: int) -> dict[int, Commit]:
    """The commit that last changed each line from `first` to `last` (a line not committed yet
    has none)."""
    relative = path.relative_to(root).as_posix()
    out = _git(root, "blame", "--porcelain", "-L", f"{first},{last}", "--", relative)
    times: dict[str, datetime] = {}
    lines: dict[int, str] = {}
    sha = ""
    for line in (out or "").splitlines():
        if line.startswith("\t"):
            continue
        head = line.split(" ")
        if len(head) >= 3 and len(head[0]) == 40 and head[2].isdigit():
            sha = head[0]
            lines[int(head[2])] = sha
        elif head[0] == "committer-time" and len(head) == 2 and head[1].isdigit():
            times[sha] = datetime.fromtimestamp(int(head[1]), UTC)
    return {
        number: Commit(sha, times[sha])
        for number, sha in lines.items()
        if sha != NOT_COMMITTED and sha in times
    }

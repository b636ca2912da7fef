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


def _start(directory: Path, *arguments: str) -> subprocess.Popen[str] | None:
    try:
        return subprocess.Popen(
            ["git", "-C", str(directory), *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError:
        return None


def _output(git: subprocess.Popen[str] | None) -> str | None:
    """What a started git printed, or None when it failed or took too long."""
    if git is None:
        return None
    try:
        out, _ = git.communicate(timeout=GIT_SECONDS)
    except subprocess.SubprocessError:
        git.kill()
        git.communicate()
        return None
    return out if git.returncode == 0 else None


def _git(directory: Path, *arguments: str) -> str | None:
    return _output(_start(directory, *arguments))


def top_level(path: Path) -> Path | None:
    """The work tree holding `path`, if it is in one: the nearest folder at or above it with a
    `.git` (a folder, or the file of a linked work tree or a submodule). Read from the disk, not
    asked of git: a blame starts one process fewer."""
    directory = path if path.is_dir() else path.parent
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    directory = directory.resolve()
    for folder in (directory, *directory.parents):
        if (folder / ".git").exists():
            return folder
    return None


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


def _log(root: Path, path: Path, follow: bool) -> subprocess.Popen[str] | None:
    relative = path.relative_to(root).as_posix()
    options = ["--follow"] if follow else []
    return _start(root, "log", *options, "--format=%H %ct", "--", relative)


def _commits(log: str | None) -> list[Commit]:
    found = []
    for line in (log or "").splitlines():
        sha, _, stamp = line.partition(" ")
        if stamp.isdigit():
            found.append(Commit(sha, datetime.fromtimestamp(int(stamp), UTC)))
    return found


def commits(root: Path, path: Path, follow: bool) -> list[Commit]:
    """The commits that changed the file, the newest first."""
    return _commits(_output(_log(root, path, follow)))


def _blame(root: Path, path: Path, first: int, last: int) -> subprocess.Popen[str] | None:
    relative = path.relative_to(root).as_posix()
    return _start(root, "blame", "--porcelain", "-L", f"{first},{last}", "--", relative)


def _blamed(out: str | None) -> dict[int, Commit]:
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


def blame(root: Path, path: Path, first: int, last: int) -> dict[int, Commit]:
    """The commit that last changed each line from `first` to `last` (a line not committed yet
    has none)."""
    return _blamed(_output(_blame(root, path, first, last)))


def blame_and_commits(
    root: Path, path: Path, first: int, last: int, follow: bool
) -> tuple[dict[int, Commit], list[Commit]]:
    """`blame` and `commits` at once: the two gits run side by side."""
    blaming, logging = _blame(root, path, first, last), _log(root, path, follow)
    blamed, history = _blamed(_output(blaming)), _commits(_output(logging))
    return blamed, history if blamed else []

"""Which file a blame is asked about, named as the turns recorded it: relative to its project.

A turn records a file it touched relative to its project when the file is under it (else the
absolute path). `~/code/shop/src/auth/login.py` is `src/auth/login.py` of the project
`~/code/shop`: the longest project recorded whose directory holds the file. A relative path is
taken from the current directory first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_LINES = re.compile(r"^(?P<path>.+?):(?P<first>\d+)(?:-(?P<last>\d+))?$")


@dataclass(frozen=True)
class Target:
    """The file asked about: where it is, and the project it is under (None: under none)."""

    absolute: Path
    project: str | None
    # Its names relative to the project (its absolute path when under none): the current name
    # first, then the earlier ones git followed.
    names: tuple[str, ...]

    @property
    def path(self) -> str:
        return self.names[0]


def split_lines(spec: str) -> tuple[str, tuple[int, int] | None]:
    """`PATH`, `PATH:LINE` or `PATH:FROM-TO` (a file whose name ends so is the file itself);
    raises ValueError for a range that is empty or starts at 0."""
    found = _LINES.match(spec)
    if found is None or Path(spec).expanduser().exists():
        return spec, None
    first = int(found["first"])
    last = int(found["last"] or first)
    if first < 1 or last < first:
        raise ValueError(spec)
    return found["path"], (first, last)


def absolute(path: str, cwd: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(Path(cwd) / Path(path).expanduser()))


def locate(path: Path, projects: Iterable[str]) -> tuple[str | None, str]:
    """The longest of `projects` holding `path`, and the path relative to it."""
    best: str | None = None
    for project in projects:
        holds = path.is_relative_to(project) and path != Path(project)
        if holds and (best is None or len(project) > len(best)):
            best = project
    if best is None:
        return None, path.as_posix()
    return best, path.relative_to(best).as_posix()


def target(
    path: str, cwd: str | os.PathLike[str], projects: Iterable[str], earlier: Iterable[Path] = ()
) -> Target:
    where = absolute(path, cwd)
    listed = list(projects)
    project, name = locate(where, listed)
    names = [name]
    for old in earlier:
        old_project, old_name = locate(old, listed)
        if old_project == project:
            names.append(old_name)
    return Target(where, project, tuple(dict.fromkeys(names)))


def recorded_as(recorded: str, project: str) -> str:
    """A path as a turn of `project` recorded it, made relative to the project where under it:
    `./src/a.py` and `<project>/src/a.py` are `src/a.py`."""
    clean = PurePosixPath(recorded.replace("\\", "/"))
    if clean.is_absolute():
        if clean.is_relative_to(project) and clean != PurePosixPath(project):
            return clean.relative_to(project).as_posix()
        return clean.as_posix()
    return os.path.normpath(clean.as_posix()).replace("\\", "/")

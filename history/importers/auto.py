"""Where each agent keeps its sessions, and which agent wrote a file.

`recall import auto` looks in every format's `candidate_roots` for the machine it runs on;
`recall import auto PATH` asks each format whether it claims each file it finds (`claims`
reads a file's name and first lines), so one folder of mixed transcripts is read right;
`recall import --list` shows each agent, each place looked in, and the sessions found there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from history.importers.base import Places, TranscriptFormat

# Formats whose `claims` accepts broad shapes are asked last, after the specific ones.
ASKED_LAST = ("claude-code",)
# VS Code and its forks: the folder under which `User/globalStorage/<extension id>` lies.
VSCODE_EDITIONS = ("Code", "Code - Insiders", "Cursor", "VSCodium")


def owner(path: Path, formats: Iterable[TranscriptFormat]) -> TranscriptFormat | None:
    """The first of `formats` (broad ones last) that claims `path` as a file it writes."""
    ordered = sorted(formats, key=lambda fmt: fmt.name in ASKED_LAST)
    return next((fmt for fmt in ordered if _claims(fmt, path)), None)


def _claims(fmt: TranscriptFormat, path: Path) -> bool:
    try:
        return fmt.claims(path)
    except (OSError, UnicodeError, ValueError):
        return False


def user_data_folders(places: Places) -> list[Path]:
    """Where each VS Code edition keeps its `User` folder on `places`' system, plus the
    remote servers' (`~/.vscode-server`, `~/.vscode-remote`)."""
    if places.system == "Windows":
        appdata = places.env.get("APPDATA")
        base = Path(appdata) if appdata else places.home / "AppData" / "Roaming"
    elif places.system == "Darwin":
        base = places.home / "Library" / "Application Support"
    else:
        config = places.env.get("XDG_CONFIG_HOME") or ""
        base = Path(config) if config and Path(config).is_absolute() else places.home / ".config"
    folders = [base / edition / "User" for edition in VSCODE_EDITIONS]
    return folders + [
        places.home / remote / "data" / "User" for remote in (".vscode-server", ".vscode-remote")
    ]


def vscode_global_storage(places: Places, extension: str) -> list[Path]:
    """An extension's globalStorage folder in every VS Code edition (Cline, Roo Code, …)."""
    return [folder / "globalStorage" / extension for folder in user_data_folders(places)]


@dataclass(frozen=True)
class Place:
    """One place an agent may keep sessions: whether it exists, and what it holds."""

    path: Path
    exists: bool
    files: int
    sessions: int


@dataclass(frozen=True)
class AgentPlaces:
    agent: str
    places: tuple[Place, ...]

    @property
    def sessions(self) -> int:
        return sum(place.sessions for place in self.places)


def survey(formats: Iterable[TranscriptFormat], places: Places) -> list[AgentPlaces]:
    """Each format's candidate places on `places`, each with the files and sessions in it."""
    found = []
    for fmt in formats:
        seen = []
        for root in fmt.candidate_roots(places):
            try:
                files = list(fmt.discover(root)) if root.exists() else []
                sessions = sum(fmt.sessions_in(path) for path in files)
                exists = root.exists()
            except OSError:
                files, sessions, exists = [], 0, False
            seen.append(Place(root, exists, len(files), sessions))
        found.append(AgentPlaces(fmt.name, tuple(seen)))
    return found


def with_sessions(formats: Iterable[TranscriptFormat], places: Places) -> list[TranscriptFormat]:
    """The formats with at least one file in one of their candidate places."""
    found = []
    for fmt in formats:
        for root in fmt.candidate_roots(places):
            try:
                if root.exists() and next(fmt.discover(root), None) is not None:
                    found.append(fmt)
                    break
            except OSError:
                continue
    return found

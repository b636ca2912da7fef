"""What the index reports of itself, whatever its backend: where it is and how it searches
(`About`), what it holds (`Stats`), what `recall doctor` found (`DoctorReport`), what deleting
damaged copies (`DeletedCopies`) and a recovery (`Recovery`) did. The faces read these; the
maintenance port of each backend (history/store/maintenance.py) fills them in."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from history.retention import RetentionPolicy


@dataclass(frozen=True)
class About:
    # The database as a person may be shown it: a file's path, a server's URL without password.
    where: str
    # How it searches, as an untranslated message (the faces pass it through their `_`).
    search: str
    full_text: bool
    # Copies of a damaged file kept in the home, which may still hold forgotten turns.
    damaged_copies: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Stats:
    turns: int
    sessions: int
    oldest: datetime | None
    newest: datetime | None
    per_project: dict[str, int] = field(default_factory=dict)
    database_bytes: int = 0
    # Live turns a forget made wait beside the file (SQLite's spool), not yet in the counts.
    spooled: int = 0
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)
    # Turns stored under older secret rules, not yet re-scanned under the current ones.
    rescan_left: int = 0
    # What a quick check of the storage found damaged (empty when sound), and that said in the
    # language asked for: the counts above may leave out what sits on damaged pages.
    damaged_pages: tuple[str, ...] = ()
    damage: str | None = None


class DamagedDatabase(Exception):
    """Part of the database cannot be read: `reason` in the database's own words, `hint` the
    untranslated message that says how to recover what is left."""

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


@dataclass(frozen=True)
class Rescanned:
    """What a re-scan under the current secret rules did: turns read, turns whose text it
    masked, and whether their old text is scrubbed from the storage yet (a reader of an older
    snapshot may hold that back: it stays owed)."""

    scanned: int = 0
    masked: int = 0
    scrubbed: bool = True


@dataclass
class DoctorReport:
    findings: list[str] = field(default_factory=list)
    healthy: bool = True
    rebuilt: bool = False

    def problem(self, sentence: str) -> None:
        self.findings.append(sentence)
        self.healthy = False


@dataclass(frozen=True)
class DeletedCopies:
    copies: tuple[Path, ...]
    freed_bytes: int


class Recovered(enum.Enum):
    RECOVERED = "recovered"
    SOUND = "sound"  # nothing to recover: the integrity check found nothing wrong
    READ_ONLY = "read-only"  # the file may only be read here
    NO_FILE = "no file"  # the database is a server's, not a file of the home


@dataclass(frozen=True)
class Recovery:
    outcome: Recovered
    turns: int = 0
    marks: int = 0  # tombstones of forgotten conversations copied
    # Stretches of row ids (first, last) of turns that could not be read.
    lost_turns: tuple[tuple[int, int], ...] = ()
    marks_lost: bool = False
    database: Path | None = None  # the new file
    kept: Path | None = None  # the damaged file, kept as a damaged copy

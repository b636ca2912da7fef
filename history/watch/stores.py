"""What `recall watch` follows: each agent's store (a format and a root), the session files
in it, and which of them changed since they were last imported.

A file is known by its signature: inode, size and modification time, and those of its SQLite
write-ahead log (an agent that keeps its sessions in a database writes the `-wal` first). A
changed signature means the file is read again; the import run's turn ids keep that correct
whether the file grew, was truncated, or was replaced by another file of the same name.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from history.importers import TranscriptFormat
from history.importers.base import Places

Signature = tuple[int, int, int, int, int]
# A database's companions: a change to one is a change to the database it sits beside.
COMPANIONS = ("-wal", "-journal", "-shm")


@dataclass(frozen=True)
class Store:
    fmt: TranscriptFormat
    root: Path


def agent_stores(
    formats: Iterable[TranscriptFormat], places: Places, path: Path | None = None
) -> list[Store]:
    """Every format at `path` when one is named; else each format's candidate roots that
    exist, less those too broad to be anyone's store."""
    if path is not None:
        root = path.expanduser().resolve()
        return [Store(fmt, root) for fmt in formats]
    stores = []
    for fmt in formats:
        try:
            roots = fmt.candidate_roots(places)
        except (OSError, ValueError, RuntimeError):  # a root outside this home, or no home
            continue
        for root in roots:
            if root.exists() and not too_broad(root, places.home):
                stores.append(Store(fmt, root.resolve()))
    return stores


def too_broad(root: Path, home: Path) -> bool:
    """The home folder, a folder above it, or the current directory (where aider keeps its
    history, in the project) is no agent's store: following it would follow every file."""
    try:
        resolved, cwd = root.resolve(), Path.cwd().resolve()
    except (OSError, RuntimeError):
        return True
    return resolved == cwd or home.resolve().is_relative_to(resolved)


def watched_roots(stores: Sequence[Store], home: Path) -> list[Path]:
    """The paths to watch, each once, none inside another: each store's root that exists, and
    for a root that is a file, its folder (a watch on the file itself would follow the old
    file once it is rotated), unless that folder is too broad."""
    roots = set()
    for store in stores:
        if store.root.is_file() and not too_broad(store.root.parent, home):
            roots.add(store.root.parent)
        elif store.root.exists():
            roots.add(store.root)
    ordered = sorted(roots)
    return [root for root in ordered if not any(root.is_relative_to(o) for o in roots if o != root)]


def signature(path: Path) -> Signature | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    try:
        wal = os.stat(f"{path}-wal")
        wal_size, wal_time = wal.st_size, wal.st_mtime_ns
    except OSError:
        wal_size = wal_time = -1
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, wal_size, wal_time)


def session_path(path: Path) -> Path:
    """The file a change is a change of: a database's `-wal` stands for the database."""
    for suffix in COMPANIONS:
        if path.name.endswith(suffix):
            return path.with_name(path.name[: -len(suffix)])
    return path


class Tracker:
    """The session files of the stores followed, and each one's signature when last read."""

    def __init__(self) -> None:
        self.stores: list[Store] = []
        self.known: dict[Store, set[Path]] = {}
        self.seen: dict[Path, Signature] = {}

    def follow(self, stores: Sequence[Store]) -> None:
        """Follow `stores` from now on; files already read keep their signatures."""
        self.stores = list(stores)
        self.known = {store: self.known.get(store, set()) for store in self.stores}
        kept = set().union(*self.known.values()) if self.known else set()
        self.seen = {path: sig for path, sig in self.seen.items() if path in kept}

    def sweep(self) -> dict[Path, list[TranscriptFormat]]:
        """Every store listed again: the files new or changed since last read, each with the
        formats that claim it."""
        for store in self.stores:
            self._list(store)
        return self._due(set().union(*self.known.values()) if self.known else set())

    def notice(self, changed: Iterable[Path]) -> dict[Path, list[TranscriptFormat]]:
        """The session files among `changed` (the paths a notification named) that are new
        or changed. A path no store knows yet lists its store again: a new session, a file
        renamed in, a folder of sessions moved in."""
        candidates: set[Path] = set()
        relisted: set[Store] = set()
        for raw in changed:
            path = session_path(raw)
            for store in self.stores:
                if not (path == store.root or path.is_relative_to(store.root)):
                    continue
                if path in self.known[store]:
                    candidates.add(path)
                elif path.exists():
                    if store not in relisted:
                        self._list(store)
                        relisted.add(store)
                    inside = (p for p in self.known[store] if p == path or p.is_relative_to(path))
                    candidates.update(inside)
        return self._due(candidates)

    def forget(self, path: Path) -> None:
        """`path` counts as unread: the next sweep reads it again."""
        self.seen.pop(path, None)

    def _list(self, store: Store) -> None:
        try:
            self.known[store] = set(store.fmt.discover(store.root))
        except OSError:  # the root went away while it was listed: the next sweep tells
            self.known[store] = set()

    def _due(self, candidates: set[Path]) -> dict[Path, list[TranscriptFormat]]:
        due: dict[Path, list[TranscriptFormat]] = {}
        for path in sorted(candidates):
            now = signature(path)
            if now is None:  # deleted, or renamed away
                self.seen.pop(path, None)
                for known in self.known.values():
                    known.discard(path)
                continue
            if self.seen.get(path) != now:
                self.seen[path] = now
                formats = [s.fmt for s in self.stores if path in self.known[s]]
                due[path] = list({fmt.name: fmt for fmt in formats}.values())
        return due

"""The loop of `recall watch`: import what changed in the stores followed, until stopped.

It looks at every store when it starts (what was written while it was not running), then at
the files each notification names, and lists every store again each RESCAN_SECONDS: a store
that appears later (an agent installed since) is followed from then on, and a change a
notification missed is found.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from history.importers import TranscriptFormat
from history.importers.base import Places
from history.importers.run import TurnSink, import_transcripts
from history.watch.sources import POLL_SECONDS, POLL_SHARE, WatcherUnavailable, notified, polled
from history.watch.stores import Tracker, agent_stores, watched_roots

RESCAN_SECONDS = 60.0


@dataclass(frozen=True)
class Imported:
    """What one import of a changed file did: a line of the log."""

    path: Path
    sessions: int
    new: int
    updated: int
    unreadable: bool


@dataclass
class Settings:
    path: Path | None = None  # one folder or file instead of every agent's store
    poll: bool = False  # poll even where notifications work
    poll_seconds: float = POLL_SECONDS
    rescan_seconds: float = RESCAN_SECONDS


class Watch:
    """Follows the stores of `formats` on `places` and imports into `index`; `said` hears
    each import that changed something, `noted` the other events worth a log line ("no store",
    "following" with the roots, "polling" and "restarting" with the reason, "not imported"
    with the file and the error's type)."""

    def __init__(
        self,
        index: TurnSink,
        formats: Sequence[TranscriptFormat],
        places: Places,
        settings: Settings,
        said: Callable[[Imported], None],
        noted: Callable[[str, str], None],
    ) -> None:
        self.index, self.formats, self.places, self.settings = index, formats, places, settings
        self.said, self.noted = said, noted
        self.tracker = Tracker()
        self.poll = settings.poll
        self.stop = threading.Event()
        self.looked = 0.0  # the CPU seconds the last sweep took to list and stat every file

    def run(self, stop: threading.Event) -> None:
        """Until `stop` is set (or KeyboardInterrupt, from Ctrl-C in the main thread)."""
        self.stop, waiting = stop, False
        while not stop.is_set():
            stores = agent_stores(self.formats, self.places, self.settings.path)
            self.tracker.follow(stores)
            self._import(self.tracker.sweep())
            roots = watched_roots(stores, self.places.home)
            if not roots:  # a PATH named may be back in a moment (rotated): look each second
                if not waiting:
                    self.noted("no store", "")
                waiting = True
                named = self.settings.path is not None
                stop.wait(self.settings.poll_seconds if named else self.settings.rescan_seconds)
                continue
            waiting = False
            self.noted("following", ", ".join(str(root) for root in roots))
            self._follow(roots, stop)

    def _follow(self, roots: list[Path], stop: threading.Event) -> None:
        """Until `stop`, or until the stores to follow have changed: a rescan found another
        set of roots, or a file watched by itself was replaced (its watch follows the old one)."""
        due_at = time.monotonic() + self.settings.rescan_seconds
        files = {root: inode(root) for root in roots if root.is_file()}
        swept = False
        with closing(self._batches(roots, stop)) as batches:
            for batch in batches:
                if batch is None or not swept:  # a poll's tick; the watcher's first batch
                    looked = time.thread_time()
                    due = self.tracker.sweep()
                    self.looked = time.thread_time() - looked
                    self._import(due)
                    swept = True
                elif batch:
                    self._import(self.tracker.notice(batch))
                    if any(inode(root) != was for root, was in files.items() if root in batch):
                        return
                if time.monotonic() >= due_at:
                    stores = agent_stores(self.formats, self.places, self.settings.path)
                    if watched_roots(stores, self.places.home) != roots:
                        return
                    self._import(self.tracker.sweep())
                    due_at = time.monotonic() + self.settings.rescan_seconds

    def _batches(
        self, roots: list[Path], stop: threading.Event
    ) -> Generator[set[Path] | None, None, None]:
        if not self.poll:
            try:
                yield from notified(roots, stop)
                return
            except WatcherUnavailable as error:
                self.noted("polling", str(error))
                self.poll = True
            except (OSError, RuntimeError) as error:  # it failed once started: start again
                self.noted("restarting", str(error) or type(error).__name__)
                stop.wait(self.settings.poll_seconds)
                return
        yield from polled(stop, lambda: max(self.settings.poll_seconds, POLL_SHARE * self.looked))

    def _import(self, due: dict[Path, list[TranscriptFormat]]) -> None:
        for path, formats in due.items():
            if self.stop.is_set():
                return
            try:
                summary = import_transcripts(self.index, formats, path)
            except Exception as error:  # the database, most likely: the next sweep tries again
                self.tracker.forget(path)
                self.noted("not imported", f"{path} ({type(error).__name__})")
                continue
            if summary.failed:
                self.tracker.forget(path)
            unreadable = bool(summary.unreadable)
            if summary.new or summary.updated or unreadable:
                done = Imported(path, summary.sessions, summary.new, summary.updated, unreadable)
                self.said(done)


def inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None

"""When `recall watch` looks: batches of changed paths from the file system's notifications
(watchfiles: inotify, FSEvents, ReadDirectoryChangesW), or a tick of polling.

A batch closes once the files have been quiet for STEP_MS, or DEBOUNCE_MS after its first
change while they go on changing: a session written line by line is read once per burst, not
once per line. An empty batch is a tick with no change (every TICK_MS): the caller's clock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

DEBOUNCE_MS = 1_000
STEP_MS = 250
TICK_MS = 1_000
POLL_SECONDS = 1.0
# Polling waits this many times as long as its last look took, at least POLL_SECONDS: a store
# of thousands of files (2,000 take about 45 ms to list and stat) is looked at less often
# rather than costing more than 1% of a core.
POLL_SHARE = 100


class WatcherUnavailable(Exception):
    """The notifications could not be set up (no watchfiles, no inotify watches left, ...)."""


def notified(roots: Sequence[Path], stop: threading.Event) -> Iterator[set[Path]]:
    """Batches of changed paths under `roots` until `stop` is set. Raises WatcherUnavailable
    when the watcher cannot start; Ctrl-C in the main thread raises KeyboardInterrupt."""
    try:
        from watchfiles import watch
    except ImportError as error:
        raise WatcherUnavailable(str(error)) from None
    batches = watch(
        *roots,
        watch_filter=None,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        rust_timeout=TICK_MS,
        yield_on_timeout=True,
        ignore_permission_denied=True,
    )
    try:
        first = next(batches)
    except StopIteration:
        return
    except (OSError, RuntimeError) as error:  # watchfiles' own errors are RuntimeErrors
        raise WatcherUnavailable(str(error) or type(error).__name__) from None
    try:
        yield {Path(path) for _, path in first}
        for changes in batches:
            yield {Path(path) for _, path in changes}
    finally:
        batches.close()


def polled(stop: threading.Event, pause: Callable[[], float]) -> Iterator[None]:
    """A tick after each `pause()` seconds until `stop` is set: the caller looks at every
    file."""
    while not stop.wait(pause()):
        yield None

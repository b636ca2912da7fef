"""`recall doctor --rescan`: the turns stored under older secret rules re-scanned now, and what
`recall stats` says of those left (history/store/rescan.py does the work)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from history.cli.common import FAILED, OK
from history.cli.language import _, ngettext, number
from history.domain import READ_ONLY
from history.index import HistoryIndex

# A re-scan off a terminal says how far it is at most this often.
PROGRESS_SECONDS = 1.0


def left_to_rescan(turns: int) -> str:
    """What `recall stats` says of the turns left to re-scan."""
    return ngettext(
        "{count} turn stored under older secret rules, left to re-scan (the upkeep does it; "
        "recall doctor --rescan does it now)",
        "{count} turns stored under older secret rules, left to re-scan (the upkeep does it; "
        "recall doctor --rescan does it now)",
        turns,
        count=number(turns),
    )


def rescan(index: HistoryIndex) -> int:
    """Re-scan now the turns stored under older secret rules, with their progress on stderr."""
    if not index.writable:
        refused = _("recall doctor: nothing re-scanned: {reason}", reason=_(READ_ONLY))
        print(refused, file=sys.stderr)
        return FAILED
    with _progress() as progress:
        done = index.rescan(progress)
    print(
        ngettext(
            "Re-scanned {count} turn under the current secret rules: {masked} masked.",
            "Re-scanned {count} turns under the current secret rules: {masked} masked.",
            done.scanned,
            count=number(done.scanned),
            masked=number(done.masked),
        )
    )
    if not done.scrubbed:
        print(
            _(
                "Their old text is still owed its scrub: another process holds an older "
                "snapshot of the database. It is finished once that process lets go."
            )
        )
    return OK


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None]]:
    """A transient bar on a terminal; elsewhere a line on stderr at most every second, and the
    last one."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(_("re-scan"), total=None)
            yield lambda done, total: bar.update(task, completed=done, total=total)
        return
    said = [0.0]

    def line(done: int, total: int) -> None:
        if done < total and time.monotonic() - said[0] < PROGRESS_SECONDS:
            return
        said[0] = time.monotonic()
        shown = _("re-scanned {done} of {total} turns", done=number(done), total=number(total))
        print(shown, file=sys.stderr, flush=True)

    yield line

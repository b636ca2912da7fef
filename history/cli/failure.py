"""The CLI's last line of defence: an unexpected error becomes one sentence and exit code 3.

The details (the traceback, with the error's message passed through `redact`) go to
`<home>/recall.log`, kept private (0600) and at most 1 MB plus one older file; when the home
cannot hold it, to `recall-<uid>.log` in the system's temporary folder.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import traceback
from datetime import datetime
from pathlib import Path

from history.cli.language import _
from history.home import ensure_private_dir, resolve_home

LOG_NAME = "recall.log"
LOG_BYTES = 1_000_000
REASON_CHARS = 160


def reason(error: BaseException) -> str:
    """The error's type and its first line, cut short and with any secret masked."""
    cause = getattr(error, "orig", None)  # a DBAPIError's driver error says it plainly
    source = cause if isinstance(cause, BaseException) else error
    if isinstance(source, OSError) and source.strerror:
        text = source.strerror + (f": {source.filename}" if source.filename else "")
    else:
        text = str(source).strip().splitlines()[0] if str(source).strip() else ""
    try:
        from history.redact import redact

        text = redact(text)[:REASON_CHARS]
    except Exception:  # a redactor that fails shows nothing of the text
        text = ""
    return f"{type(error).__name__} ({text})" if text else type(error).__name__


def log_places(home: str | None) -> list[Path]:
    places = []
    with contextlib.suppress(OSError, RuntimeError):  # no home directory to expand `~` into
        places.append(resolve_home(home) / LOG_NAME)
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    places.append(Path(tempfile.gettempdir()) / f"recall-{uid}.log")
    return places


def write_details(command: str, error: BaseException, home: str | None) -> Path | None:
    """Append the traceback to the first place that takes it; None when none does."""
    when = datetime.now().astimezone().isoformat(timespec="seconds")
    frames = "".join(traceback.format_tb(error.__traceback__))
    entry = f"{when} recall {command} failed: {reason(error)}\n{frames}\n"
    for place in log_places(home):
        try:
            if place.parent != Path(tempfile.gettempdir()):
                ensure_private_dir(place.parent)
            if place.is_file() and place.stat().st_size > LOG_BYTES:  # one older file, no more
                place.replace(place.with_name(place.name + ".1"))
            with os.fdopen(_open_private(place), "a", encoding="utf-8") as log:
                log.write(entry)
        except OSError:
            continue
        return place
    return None


def _open_private(place: Path) -> int:
    """Open the log to append, never through a symbolic link and only if it is ours: in a
    shared temporary folder another user could have planted either."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(place, flags, 0o600)
    try:
        if hasattr(os, "getuid") and os.fstat(fd).st_uid != os.getuid():
            raise PermissionError(f"{place} belongs to another user")
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


def report(command: str, error: BaseException, home: str | None) -> None:
    """The one line a person sees."""
    try:
        place = write_details(command, error, home)
    except Exception:  # the report itself must never be the traceback
        place = None
    if place:
        line = _(
            "recall {command} failed: {reason}; details in {place}",
            command=command,
            reason=reason(error),
            place=place,
        )
    else:
        line = _(
            "recall {command} failed: {reason}; the details could not be written anywhere",
            command=command,
            reason=reason(error),
        )
    print(line, file=sys.stderr)


def database_trouble(error: Exception) -> tuple[str, str] | None:
    """("unreachable", "") for a database server that could not be reached (or its driver is
    missing), ("damaged", reason) for a damaged file, None for any other error."""
    from history.databases import trouble

    return trouble(error)

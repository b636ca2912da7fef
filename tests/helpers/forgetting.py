"""A forget's canaries: turns planted with a word found nowhere else, and the bytes of a
database's files, read back to see that word gone."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from history import HistoryIndex

# Long and distinctive: FTS5 prefix-compresses terms, so a leftover may hold only the tail.
CANARY = "zebracanaryqu" + "xvbtwelkjhprmnd"


def file_bytes(directory: Path) -> bytes:
    return b"".join(
        path.read_bytes() for path in directory.iterdir() if path.name.startswith("history.db")
    )


def assert_gone(directory: Path) -> None:
    raw = file_bytes(directory)
    assert CANARY.encode() not in raw, where_found(directory, CANARY.encode())
    assert CANARY[-8:].encode() not in raw, "the tail of the canary survived in the index"
    assert b"secret plan" not in raw, where_found(directory, b"secret plan")


def where_found(directory: Path, needle: bytes) -> str:
    """Which file holds `needle`, and in the database file which page and what kind of page
    (the first byte of a b-tree page says its kind; 0 is a free or overflow page), so that a
    rare leftover says where it was (the first ten places)."""
    places: list[str] = []
    for path in sorted(directory.iterdir()):
        if not path.name.startswith("history.db"):
            continue
        data = path.read_bytes()
        at = data.find(needle)
        while at >= 0 and len(places) < 10:
            place = f"{path.name} at byte {at}"
            if path.name == "history.db" and len(data) >= 100:
                size = int.from_bytes(data[16:18], "big") or 65536
                page = at // size
                start = page * size + (100 if page == 0 else 0)
                place += f" (page {page + 1}, kind {data[start]}, {_owner(path, page + 1)})"
            places.append(place)
            at = data.find(needle, at + 1)
    return f"{needle!r} left in: " + "; ".join(places)


def _owner(path: Path, page: int) -> str:
    """The table or index a page belongs to (SQLite's dbstat), or why that is not known."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            found = conn.execute("SELECT name FROM dbstat WHERE pageno = ?", (page,)).fetchone()
    except sqlite3.Error as error:
        return f"owner unknown: {error}"
    return found[0] if found else "on no table's tree: a free page"


def fill(index: HistoryIndex) -> None:
    for n in range(300):
        index.record(
            turn_id=f"keep-{n}",
            session_id=f"keep-{n % 10}",
            project="/work/keep",
            asked=f"ordinary turn {n} about parsers",
            answered="fine " * 20,
        )
    for n in range(3):
        index.record(
            turn_id=f"doomed-{n}",
            session_id="doomed",
            project="/work/doomed",
            asked=f"the secret plan {CANARY} step {n}",
            answered=f"noted {CANARY}",
            files=[f"src/{CANARY}.py"],
        )
    assert index.search(CANARY, project=None)


def scrubbed_soon(index: HistoryIndex, seconds: float = 10) -> bool:
    """A write leaves upkeep due, which finishes an owed scrub once writes pause (0.25 s)."""
    deadline = time.monotonic() + seconds
    while index.purge_pending and time.monotonic() < deadline:
        time.sleep(0.05)
    return not index.purge_pending


FORGETS: dict[str, Callable[[HistoryIndex], int]] = {
    "session": lambda index: index.forget_session("doomed"),
    "sessions": lambda index: index.forget_sessions(["doomed", "keep-missing"]),
    "project": lambda index: index.forget_project("/work/doomed"),
}


def canary_left(home: Path) -> bool:
    raw = file_bytes(home)  # history.db, -wal and -shm
    return CANARY.encode() in raw or CANARY[-8:].encode() in raw

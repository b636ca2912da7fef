"""FTS5's structure record read as levels of segments, and which of them a `merge` command would
take: so a merge that would copy a large segment (and a common word's whole list of turns in it,
which FTS5 writes in one piece whatever page budget it was given) can be left for later.

The record (`<table>_data` row 10): a cookie, FTS5's second-format marker if there, then varints:
levels, segments, the write counter, and for each level the segments its merge under way takes
(0 when none) and its segment count, each segment its id, first and last page (and five more
numbers in the second format).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from history.store.sqlite.fts import FTS_TABLE, _varints

_SECOND_FORMAT = b"\xff\x00\x00\x01"
# FTS5's `usermerge` default: a level is merged once it holds this many segments.
USERMERGE = 4


@dataclass(frozen=True)
class Level:
    merging: int  # how many of its segments a merge under way takes (0: none)
    pages: tuple[int, ...]  # each segment's pages, oldest first


def levels(conn: Connection) -> list[Level]:
    block = conn.exec_driver_sql(f"SELECT block FROM {FTS_TABLE}_data WHERE id = 10").scalar()
    return parse(bytes(block or b""))


def parse(block: bytes) -> list[Level]:
    second = block[4:8] == _SECOND_FORMAT
    values = _varints(block[8 if second else 4 :])
    if len(values) < 3:
        return []
    each, at, found = (8 if second else 3), 3, []
    for _ in range(values[0]):
        merging, count = values[at], values[at + 1]
        at += 2
        pages = tuple(
            values[at + k * each + 2] - values[at + k * each + 1] + 1 for k in range(count)
        )
        at += count * each
        found.append(Level(merging, pages))
    return found


def merge_input_pages(found: list[Level], usermerge: int = USERMERGE) -> int:
    """The pages of the segments FTS5's `merge` with a positive page count would read from, as
    fts5IndexMerge picks them: the first level with a merge under way if it takes more segments
    than any level below holds, else the level holding the most; 0 when no level qualifies."""
    best, chosen = 0, None
    for level in found:
        if level.merging:
            if level.merging > best:
                best, chosen = usermerge, level
            break
        if len(level.pages) > best:
            best, chosen = len(level.pages), level
    if chosen is None or best < usermerge:
        return 0
    taken = chosen.merging or len(chosen.pages)
    return sum(chosen.pages[:taken])

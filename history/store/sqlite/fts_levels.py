"""FTS5's structure record read as levels of segments, and which of them a `merge` command would
take: so a merge that would copy a large segment (and a common word's whole list of turns in it,
which FTS5 writes in one piece whatever page budget it was given) can be left for later.

The record (`<table>_data` row 10): a cookie, FTS5's second-format marker if there, then varints:
levels, segments, the write counter, and for each level the segments its merge under way takes
(0 when none) and its segment count, each segment its id, first and last page (and five more
numbers in the second format).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Connection

from history.store.sqlite.fts import FTS_TABLE, varints

_SECOND_FORMAT = b"\xff\x00\x00\x01"
# FTS5's `usermerge` default: a level is merged once it holds this many segments.
USERMERGE = 4


@dataclass(frozen=True)
class Level:
    merging: int  # how many of its segments a merge under way takes (0: none)
    pages: tuple[int, ...]  # each segment's pages, oldest first
    # each segment's id and first and last page (a merge under way trims what it has read)
    spans: tuple[tuple[int, int, int], ...] = field(default=(), compare=False)


def levels(conn: Connection) -> list[Level]:
    block = conn.exec_driver_sql(f"SELECT block FROM {FTS_TABLE}_data WHERE id = 10").scalar()
    return parse(bytes(block or b""))


def segment_count(conn: Connection) -> int:
    """How many segments the index holds: what a search reads each word's postings from."""
    return sum(len(level.pages) for level in levels(conn))


def parse(block: bytes) -> list[Level]:
    second = block[4:8] == _SECOND_FORMAT
    values = varints(block[8 if second else 4 :])
    if len(values) < 3:
        return []
    each, at, found = (8 if second else 3), 3, []
    for _ in range(values[0]):
        merging, count = values[at], values[at + 1]
        at += 2
        spans = tuple(
            (values[at + k * each], values[at + k * each + 1], values[at + k * each + 2])
            for k in range(count)
        )
        at += count * each
        found.append(Level(merging, tuple(last - first + 1 for _, first, last in spans), spans))
    return found


@dataclass(frozen=True)
class Pick:
    """What FTS5's `merge` with a positive page count would read from: the level and the pages
    of the segments it takes there (a merge under way takes its first `merging`)."""

    level: int
    pages: int


def merge_pick(found: list[Level], usermerge: int = USERMERGE) -> Pick | None:
    """The segments FTS5's `merge` would read from, as fts5IndexMerge picks them: the first
    level with a merge under way if it takes more segments than any level below holds, else
    the level holding the most (the lowest of those); None when no level qualifies."""
    best, chosen = 0, None
    for at, level in enumerate(found):
        if level.merging:
            if level.merging > best:
                best, chosen = usermerge, at
            break
        if len(level.pages) > best:
            best, chosen = len(level.pages), at
    if chosen is None or best < usermerge:
        return None
    level = found[chosen]
    taken = level.merging or len(level.pages)
    return Pick(chosen, sum(level.pages[:taken]))


def small_merge(found: list[Level], most_pages: int, crowded: int) -> bool:
    """Whether the merge FTS5 would run now reads only small segments: at most `most_pages` in
    all, or level 0 once it holds `crowded` segments. Level 0 holds only segments as small as
    one write's (FTS5 flushes its pending words at ~1 MB; a flush pulls down only segments no
    larger than itself), so however many pages they hold in all, none holds a long list of
    turns for a common word; a level above may hold the whole index's largest segment, whose
    commonest words' lists a merge writes in one piece whatever its page budget."""
    pick = merge_pick(found)
    if pick is None:
        return False
    return pick.pages <= most_pages or (pick.level == 0 and len(found[0].pages) >= crowded)


def slow_merge(found: list[Level], slow_most_pages: int) -> bool:
    """Whether the merge FTS5 would run now, if not small, may go on a page a statement: it
    reads at most `slow_most_pages` in all (never a segment as large as an import's of a
    million turns). Given one page, a statement writes one word's list whole, the longest of
    them about a tenth of the pages it reads (at 1M turns, 28,000 pages of a re-scan's
    segments merged a page a statement: at most 37 ms a statement)."""
    pick = merge_pick(found)
    return pick is not None and pick.pages <= slow_most_pages


@dataclass(frozen=True)
class Bounds:
    """What a step may merge: at most `small_pages` read (or level 0 once it holds `crowded`
    segments) with a page budget, at most `slow_pages` a page a statement."""

    small_pages: int
    crowded: int
    slow_pages: int


def pages_to_merge(found: list[Level], budget: int, bounds: Bounds, slow: bool = True) -> int:
    """The page budget FTS5's `merge` may be given now: `budget` when every pick it could go on
    to is small, 1 when only the first is, or when it is slow (and `slow`); 0 when it reads
    more (merges.py says why)."""
    if small_merge(found, bounds.small_pages, bounds.crowded):
        small = cascade_small(found, budget, bounds.small_pages, bounds.crowded)
        return budget if small else 1
    return 1 if slow and slow_merge(found, bounds.slow_pages) else 0


def completed(found: list[Level], pick: Pick) -> list[Level]:
    """The levels once the picked merge is done: its segments gone from their level, one
    segment as large as they were in all added to the level above (FTS5's promotion of small
    segments aside)."""
    level = found[pick.level]
    taken = level.merging or len(level.pages)
    after = [*found, Level(0, ())] if pick.level + 1 == len(found) else list(found)
    after[pick.level] = Level(0, level.pages[taken:], level.spans[taken:])
    above = after[pick.level + 1]
    after[pick.level + 1] = Level(above.merging, (*above.pages, pick.pages))
    return after


def cascade_small(found: list[Level], budget: int, most_pages: int, crowded: int) -> bool:
    """Whether every merge FTS5's `merge` with this page budget could run is small: once the
    level it picked is merged it goes on to the next pick while the budget lasts, each merge
    writing at least a page (so at most `budget` of them)."""
    for _ in range(budget):
        pick = merge_pick(found)
        if pick is None:
            return True
        if not small_merge(found, most_pages, crowded):
            return False
        found = completed(found, pick)
    return True

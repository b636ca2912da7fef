"""How much of FTS5's index a step of the upkeep merges: never so much that one statement holds
the write lock long.

FTS5 checks a merge's page budget only between words, so a merge that reads a large segment
writes each common word's whole list of turns in one piece (at 1M turns the import's 115,696-page
segment holds a list for each common word of a million turns: 114-242 ms a statement). So a
step merges only what `BOUNDS` calls small (at most `small_pages` read, or level 0 once it holds
`crowded` segments: `fts_levels.small_merge`), with a page budget when every level FTS5 could go
on to is small too, else one page. FTS5 merges the level holding the most segments: once that
is a level grown past a small merge, every level below it must hold as many segments before it
is merged, and the levels pile up until one reaches `crisismerge` (256), which FTS5 merges all
at once inside whichever write crosses it (at 1M turns, 10% of them re-scanned: 207-285 ms).
Such a level of at most `slow_pages` is merged a page a statement (`fts_levels.slow_merge`:
the longest list a tenth of what it reads; 28,170 pages so merged took at most 37 ms a
statement). A level larger still is left to a caller who waits for the upkeep (`tidy`,
`recall doctor`) and to the rewrite a large forget owes.

A re-scan's steps each add a segment; after each, `after_rescan_step` merges at most
RESCAN_MERGE_CHANGES rows of the index changed (about two a page: the page written, a page read
let go) or for RESCAN_MERGE_SECONDS, RESCAN_MERGE_PAGES a statement, slow merges only in the
first RESCAN_SLOW_MERGE_SECONDS.
"""

from __future__ import annotations

import time

from sqlalchemy import Connection

from history.store.sqlite import fts, fts_levels

BOUNDS = fts_levels.Bounds(small_pages=8192, crowded=64, slow_pages=24_576)
RESCAN_MERGE_PAGES, RESCAN_MERGE_CHANGES, RESCAN_MERGE_SECONDS = 16, 1024, 0.02
RESCAN_SLOW_MERGE_SECONDS = 0.01
# A merge that changed fewer rows of the index did nothing: FTS5's documented sign.
WORKED = 2


def merged(conn: Connection, pages: int) -> int:
    """FTS5's merge of about `pages` pages (negative: every segment gathered into one merge
    first, FTS5's incremental `optimize`): the rows of the index it changed (fewer than
    WORKED: there was nothing to merge)."""
    before = conn.exec_driver_sql("SELECT total_changes()").scalar_one()
    conn.exec_driver_sql(fts.merge_statement(pages))
    return int(conn.exec_driver_sql("SELECT total_changes()").scalar_one() - before)


def bounded_pages(conn: Connection, pages: int, slow: bool = True) -> int:
    """The page budget a step's merge may be given now, at most `pages`; 0: none."""
    return fts_levels.pages_to_merge(fts_levels.levels(conn), pages, BOUNDS, slow)


def after_rescan_step(conn: Connection) -> None:
    """Merge a few pages of the index after a re-scan's step, in the caller's transaction."""
    began = time.monotonic()
    written = 0
    while written < RESCAN_MERGE_CHANGES and time.monotonic() < began + RESCAN_MERGE_SECONDS:
        slow = time.monotonic() < began + RESCAN_SLOW_MERGE_SECONDS
        pages = bounded_pages(conn, RESCAN_MERGE_PAGES, slow)
        if not pages:
            return
        changes = merged(conn, pages)
        if changes < WORKED:
            return
        written += changes

"""Which segments FTS5's `merge` would read from, from its structure record: the re-scan merges
only when they are small (a large one's commonest words are written in one piece, whatever the
page budget), so what it merges is bounded by pages, not by a clock."""

from __future__ import annotations

from history.store.sqlite.fts import varint
from history.store.sqlite.fts_levels import (
    Bounds,
    Level,
    Pick,
    cascade_small,
    merge_pick,
    pages_to_merge,
    parse,
    slow_merge,
    small_merge,
)


def record(levels: list[tuple[int, list[int]]], second: bool = False) -> bytes:
    """A structure record: the cookie, FTS5's second-format marker if `second` (each segment
    then carries five more numbers: origins and tombstone counts), the levels."""
    segments = sum(len(pages) for _, pages in levels)
    body = [len(levels), segments, 0]
    first = 1
    for merging, pages in levels:
        body += [merging, len(pages)]
        for n, size in enumerate(pages):
            body += [n + 1, first, first + size - 1, *([n, n, 0, 0, 9] if second else [])]
            first += size
    marker = b"\xff\x00\x00\x01" if second else b""
    return b"\x00\x00\x00\x07" + marker + b"".join(varint(value) for value in body)


def test_the_record_is_read_as_levels_of_segment_pages() -> None:
    found = parse(record([(0, [1, 2]), (0, []), (2, [30, 40, 5])]))
    assert found == [Level(0, (1, 2)), Level(0, ()), Level(2, (30, 40, 5))]


def test_a_second_format_record_is_read_past_its_marker_after_the_cookie() -> None:
    # Regression: the segment count looked for the marker before the cookie, read the marker's
    # bytes as the numbers of levels and segments, and counted none.
    levels = [(0, [1, 2]), (0, []), (2, [30, 40, 5])]
    assert parse(record(levels, second=True)) == parse(record(levels))


def test_no_level_with_enough_segments_takes_nothing() -> None:
    assert merge_pick(parse(record([(0, [1, 1, 1]), (0, [90])]))) is None


def test_the_level_holding_the_most_segments_is_taken_whole() -> None:
    found = parse(record([(0, [1, 1, 1, 1, 2]), (0, [50, 50, 50, 50])]))
    assert merge_pick(found) == Pick(0, 6)


def test_a_merge_under_way_is_carried_on_unless_a_lower_level_holds_more() -> None:
    under_way = [(0, [1, 1]), (3, [40, 40, 40, 9])]
    assert merge_pick(parse(record(under_way))) == Pick(1, 120)
    crowded = [(0, [1, 1, 1, 1, 1]), (3, [40, 40, 40, 9])]
    assert merge_pick(parse(record(crowded))) == Pick(0, 5)


def test_only_small_segments_or_a_crowded_level_0_make_a_small_merge() -> None:
    small = parse(record([(0, [2, 2, 2, 2]), (0, [500, 3])]))
    assert small_merge(small, most_pages=64, crowded=8)
    # The top level holds the most segments, one of them large: its merge is left alone.
    large = parse(record([(0, [2, 2]), (0, [500, 3, 3, 3])]))
    assert not small_merge(large, most_pages=64, crowded=8)
    # Level 0 holds only segments as small as one write's, however many pages in all.
    crowded = parse(record([(0, [30] * 8), (0, [500, 3, 3])]))
    assert small_merge(crowded, most_pages=64, crowded=8)
    assert not small_merge(parse(record([(0, [30] * 7), (0, [500])])), 64, crowded=8)


def test_a_merge_that_could_go_on_to_a_large_segment_is_not_safe_with_a_full_budget() -> None:
    # Level 0's merge fills level 1 to four segments, whose merge would fill the top level,
    # holding the large segment, to four: FTS5 goes on while its page budget lasts.
    chain = parse(record([(0, [1, 1, 1, 1]), (0, [2, 2, 2]), (0, [500, 9, 9])]))
    assert small_merge(chain, most_pages=64, crowded=64)
    assert not cascade_small(chain, budget=16, most_pages=64, crowded=64)
    assert cascade_small(chain, budget=1, most_pages=64, crowded=64)
    apart = parse(record([(0, [1, 1, 1, 1]), (0, [2]), (0, [500, 9])]))
    assert cascade_small(apart, budget=16, most_pages=64, crowded=64)


def test_a_level_of_not_too_many_pages_makes_a_slow_merge() -> None:
    # The fullest level holds the re-scan's own segments, too many pages in all for a small
    # merge: merged a page a statement rather than left to pile up towards FTS5's crisismerge.
    mid = parse(record([(0, [2, 2]), (0, [60, 60, 60, 60]), (0, [9000])]))
    assert not small_merge(mid, most_pages=64, crowded=8)
    assert slow_merge(mid, slow_most_pages=1000)
    assert not slow_merge(mid, slow_most_pages=200)  # too many pages in all
    # A merge under way reads only the segments it took.
    under_way = parse(record([(0, [2]), (3, [60, 60, 60, 5000])]))
    assert slow_merge(under_way, slow_most_pages=1000)
    assert not slow_merge(parse(record([(0, [1])])), 1000)  # nothing to merge


def test_a_step_merges_small_with_its_budget_slow_a_page_and_large_not_at_all() -> None:
    bounds = Bounds(small_pages=64, crowded=8, slow_pages=1000)
    small = parse(record([(0, [2, 2, 2, 2]), (0, [500])]))
    assert pages_to_merge(small, 16, bounds) == 16
    goes_on = parse(record([(0, [2, 2, 2, 2]), (0, [60, 60, 60])]))  # then a slow level
    assert pages_to_merge(goes_on, 16, bounds) == 1
    slow = parse(record([(0, [2]), (0, [200, 200, 200, 200])]))
    assert pages_to_merge(slow, 16, bounds) == 1
    assert pages_to_merge(slow, 16, bounds, slow=False) == 0
    large = parse(record([(0, [2]), (0, [300, 300, 300, 3000])]))
    assert pages_to_merge(large, 16, bounds) == 0

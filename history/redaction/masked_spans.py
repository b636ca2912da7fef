"""The spans of a text replaced so far, to carry its places over to the text as it is now.

Masking one span moves every place after it; moving each literal's places at each mask cost
more than the scans themselves (a megabyte of every rule's anchors: 180 masks, ~90 lists moved
at each). The places are kept where they were found instead, and moved when asked for, past
every span replaced since at once.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate

from history.redaction.rule import Edit


class MaskedSpans:
    """Spans of an earlier text (sorted, apart), each replaced by text of a given length."""

    def __init__(self) -> None:
        self._spans: list[tuple[int, int, int]] = []
        self._refresh()

    def __bool__(self) -> bool:
        return bool(self._spans)

    def _refresh(self) -> None:
        self._starts = [start for start, _, _ in self._spans]
        self._ends = [end for _, end, _ in self._spans]
        # How far each span's start has moved: what the spans before it added.
        self._shifts = [0, *accumulate(size - (end - start) for start, end, size in self._spans)]
        self._now_starts = [
            start + shift for start, shift in zip(self._starts, self._shifts[:-1], strict=True)
        ]
        self._now_ends = [
            start + size for start, (_, _, size) in zip(self._now_starts, self._spans, strict=True)
        ]

    def now(self, places: list[int], length: int) -> list[int]:
        """Where `places` (of occurrences `length` long, in the earlier text) are now; those a
        replaced span reaches are gone."""
        if not self._spans:
            return places
        moved: list[int] = []
        starts, ends, shifts, count = self._starts, self._ends, self._shifts, len(self._spans)
        for place in places:
            span = bisect_right(ends, place)
            if span < count and place + length > starts[span]:
                continue
            moved.append(place + shifts[span])
        return moved

    def add(self, edits: list[Edit]) -> bool:
        """Take in `edits` (of the text as it is now); False, taking in nothing, when one of
        them reaches or adjoins a span replaced before (the places must be moved first)."""
        earlier: list[tuple[int, int, int]] = []
        for start, end, replacement in edits:
            span = bisect_left(self._now_ends, start)
            if span < len(self._spans) and self._now_starts[span] <= end:
                return False
            shift = self._shifts[span]
            earlier.append((start - shift, end - shift, len(replacement)))
        self._spans = sorted(self._spans + earlier)
        self._refresh()
        return True

"""Long texts: every pattern in the rules' order, each tried only where its literal occurs.

What comes out is what trying each pattern over the whole text, one after the other, gives
(`Rule.scan`); `LiteralHits` says where a pattern can match, so a megabyte costs one pass for
the literals and a try at each of their few places, not a read of it per pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from history.redaction.hits import LiteralHits, automaton
from history.redaction.rule import Rule, applied


def _matches_at(pattern: re.Pattern[str], text: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """The matches `pattern.finditer(text)` gives, when every one starts at one of `starts`."""
    end = 0
    for start in starts:
        if start >= end:
            match = pattern.match(text, start)
            if match is not None:
                yield match
                end = match.end()


class LongScans:
    """The patterns of `rules`, in order, for texts long enough to hold most literals."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self._scans = tuple((rule, pattern) for rule in rules for pattern in rule.patterns)
        self.literals = sorted({pattern.literal for _, pattern in self._scans if pattern.literal})
        index = {literal: i for i, literal in enumerate(self.literals)}
        self._literal_of = tuple(
            None if pattern.literal is None else index[pattern.literal]
            for _, pattern in self._scans
        )
        self.finder = automaton(self.literals)
        # The patterns of each literal, and those without one (tried on every text).
        self._scans_of: list[list[int]] = [[] for _ in self.literals]
        for scan, literal in enumerate(self._literal_of):
            if literal is not None:
                self._scans_of[literal].append(scan)
        self._always = [literal is None for literal in self._literal_of]
        # For each pattern, its literal where no pattern after it has that literal: from there on
        # its places need not be followed.
        last = {literal: i for i, literal in enumerate(self._literal_of) if literal is not None}
        self._done_after = tuple(
            literal if literal is not None and last[literal] == i else None
            for i, literal in enumerate(self._literal_of)
        )

    def apply(self, text: str) -> str:
        """`text` after every pattern, each over the text the ones before it left."""
        hits = LiteralHits(self.literals, self.finder, text)
        # Until a mask is made the text is as read: a pattern whose literal it does not hold is
        # passed over at once (most texts hold a few of the literals and no secret).
        wanted = list(self._always)
        for found in hits.held():
            for scan in self._scans_of[found]:
                wanted[scan] = True
        masked = False
        for (rule, pattern), literal, done, due in zip(
            self._scans, self._literal_of, self._done_after, wanted, strict=True
        ):
            if not (due or masked):
                continue
            starts = None if literal is None else hits.starts(literal)
            if done is not None:
                hits.forget(done)
            if starts == [] or not rule.tried_on(text):
                continue
            compiled = pattern.compiled
            if starts is None:
                matches = compiled.finditer(text)
            else:
                matches = _matches_at(compiled, text, starts)
            edits = rule.edits(matches, text)
            if edits:
                text = applied(text, edits)
                hits.after(text, edits)
                masked = True
        return text

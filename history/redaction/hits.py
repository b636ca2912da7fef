"""Where each pattern's literal occurs in a long text, kept true as the text is masked.

A long text used to be scanned with every pattern, each reading the whole text for its literal:
some three hundred reads of a megabyte whatever it held. One Aho-Corasick pass finds where each
literal occurs instead; a pattern whose literal is not there is not tried, and one whose literal
is there a few times is tried only at those places (every match starts at its literal). A
literal found more often than that is `DENSE`: its patterns read the whole text, as before, and
it is no longer looked for (so a run of one literal costs one read, not one hit per character).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ahocorasick_rs import AhoCorasick, Implementation

from history.redaction.masked_spans import MaskedSpans
from history.redaction.rule import Edit

# Where a literal occurs too often to be tried place by place.
DENSE: Final = None
Starts = list[int] | None

_CHUNK: Final = 16_384
# Hits read before giving up on places altogether (every literal dense): what the pass may cost.
_BUDGET: Final = 60_000
# Masks made at once past which the text is read again rather than looked at around each.
_MANY_EDITS: Final = 1_000


def _hits(finder: AhoCorasick, text: str) -> list[tuple[int, int, int]]:
    """Where `finder`'s literals occur in `text` (which holds no lone surrogate: `redact`
    replaced each, as the automaton reads UTF-8)."""
    return finder.find_matches_as_indexes(text, overlapping=True)


def automaton(literals: Sequence[str]) -> AhoCorasick:
    # The contiguous NFA is built in ~0.3 ms (the DFA ~2.5), and it is rebuilt whenever a
    # literal turns dense.
    return AhoCorasick(literals, implementation=Implementation.ContiguousNFA)


class LiteralHits:
    """For each of `literals`, the sorted starts of its occurrences in `text`, or `DENSE`; told
    of each mask made since (`after`), it answers for the text as it is now (`starts`)."""

    def __init__(self, literals: Sequence[str], finder: AhoCorasick, text: str) -> None:
        self.literals = literals
        self._finder = finder  # all of `literals`, in their order
        self._lengths = [len(literal) for literal in literals]
        self._longest = max(self._lengths)
        # Places past which a literal is dense: one a KB, where a try at each costs about what
        # the engine's own read of the text for the literal does.
        self._most = max(16, len(text) // 1024)
        self._found(text)

    def _found(self, text: str) -> None:
        # Places in the text as found, `_masked` the spans replaced since; `_recent`, places
        # found around masks since, in the text as it is now.
        self._places: list[Starts] = [[] for _ in self.literals]
        self._masked = MaskedSpans()
        self._recent: dict[int, list[int]] = {}
        tracked = list(range(len(self.literals)))
        finder: AhoCorasick | None = self._finder
        spent, places = 0, self._places
        for chunk in range(0, len(text), _CHUNK):
            if finder is None:  # built for the chunks left only: most texts are one chunk
                finder = automaton([self.literals[literal] for literal in tracked])
            hits = _hits(finder, text[chunk : chunk + _CHUNK + self._longest - 1])
            if spent + len(hits) > _BUDGET:
                self._places = [DENSE] * len(self.literals)
                return
            spent += len(hits)
            turned = False
            for index, start, _ in hits:
                found = places[tracked[index]]
                if found is None or start >= _CHUNK:
                    continue
                found.append(chunk + start)
                if len(found) > self._most:
                    places[tracked[index]] = DENSE
                    turned = True
            if turned:
                tracked = [literal for literal in tracked if places[literal] is not None]
                if not tracked:
                    return
                finder = None

    def held(self) -> list[int]:
        """The literals found in the text as it was read (a place or more, or dense)."""
        return [literal for literal, found in enumerate(self._places) if found != []]

    def starts(self, literal: int) -> Starts:
        """Where `literal` occurs in the text as it is now, or `DENSE`."""
        found = self._places[literal]
        if found is None:
            return DENSE
        now = self._masked.now(found, self._lengths[literal])
        recent = self._recent.get(literal)
        return sorted(now + recent) if recent else now

    def forget(self, literal: int) -> None:
        """`literal` is not asked for again: its places need not be followed."""
        self._places[literal] = DENSE
        self._recent.pop(literal, None)

    def after(self, text: str, edits: list[Edit]) -> None:
        """Follow `edits` (made on the text these hits are of, giving `text`)."""
        if len(edits) > _MANY_EDITS or any(start > end for start, end, _ in edits):
            # Reading the text again is cheaper than looking around each of thousands of masks
            # (and the places before a mask reaching back over the one before are not kept).
            self._found(text)
            return
        if not self._masked.add(edits):
            self._settle()
            self._masked.add(edits)
        for literal, recent in self._recent.items():
            self._recent[literal] = _moved(recent, self._lengths[literal], edits)
        self._add_around(text, edits)

    def _settle(self) -> None:
        """Move every place to the text as it is now, and start the spans replaced afresh."""
        self._places = [
            None if found is None else self.starts(i) for i, found in enumerate(self._places)
        ]
        self._masked = MaskedSpans()
        self._recent = {}

    def _add_around(self, text: str, edits: list[Edit]) -> None:
        # What a mask brings: occurrences that overlap it (or straddle an empty span's place).
        added: dict[int, set[int]] = {}
        shift = 0
        for start, end, replacement in edits:
            new_start = start + shift
            new_end = new_start + len(replacement)
            shift += len(replacement) - (end - start)
            window = max(0, new_start - self._longest + 1)
            hits = _hits(self._finder, text[window : new_end + self._longest - 1])
            for literal, hit_start, hit_end in hits:
                if window + hit_start < new_end and window + hit_end > new_start:
                    added.setdefault(literal, set()).add(window + hit_start)
        for literal, places in added.items():
            found = self._places[literal]
            if found is None:
                continue
            recent = sorted({*self._recent.get(literal, ()), *places})
            if len(found) + len(recent) > self._most:
                self._places[literal] = DENSE
                self._recent.pop(literal, None)
            else:
                self._recent[literal] = recent


def _moved(starts: list[int], length: int, edits: list[Edit]) -> list[int]:
    """`starts` (of occurrences `length` long) after `edits`: those an edit touches are gone."""
    if len(edits) == 1:
        start, end, replacement = edits[0]
        shift = len(replacement) - (end - start)
        return [kept for kept in starts if kept + length <= start] + [
            moved + shift for moved in starts if moved >= end
        ]
    kept: list[int] = []
    edit, shift = 0, 0
    for start in starts:
        while edit < len(edits) and start >= edits[edit][1]:
            old_start, old_end, replacement = edits[edit]
            shift += len(replacement) - (old_end - old_start)
            edit += 1
        if edit < len(edits) and start + length > edits[edit][0]:
            continue
        kept.append(start + shift)
    return kept

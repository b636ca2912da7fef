"""Which patterns to try on a text, found in one pass.

Each pattern starts with a literal where it can (`rule.anchor`), and a few rules require a word
somewhere in the text: a text without them cannot match, so the pattern is not tried. Testing
each of some 170 literals with `in` read the text once per pattern, most of redaction's time;
here one Aho-Corasick pass finds every literal the text holds (overlapping ones too), and only
the patterns due are tried, in the rules' order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ahocorasick_rs import AhoCorasick, Implementation

from history.redaction.rule import Pattern, Rule


class Scan(NamedTuple):
    literal: str | None
    requires: tuple[str, ...]
    scan: Callable[[Pattern, str], str]
    pattern: Pattern


class Scans:
    """The patterns of `rules`, in order, and the literals that make each of them due."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.scans = tuple(
            Scan(pattern.literal, rule.requires, rule.scan, pattern)
            for rule in rules
            for pattern in rule.patterns
        )
        # A pattern is filed under each word it requires (rarer than a literal of two letters),
        # or under its literal.
        self._by_literal: dict[str, list[int]] = {}
        for i, scan in enumerate(self.scans):
            keys = scan.requires or ([scan.literal] if scan.literal else [])
            if not keys:
                # It would have to be tried on every text: give it a literal to start at.
                raise ValueError(f"nothing to look for before trying {scan.pattern.pattern!r}")
            for key in keys:
                self._by_literal.setdefault(key, []).append(i)
        self.literals = frozenset(
            {*self._by_literal, *(word for scan in self.scans for word in scan.requires)}
        )
        self._finder = AhoCorasick(sorted(self.literals), implementation=Implementation.DFA)

    def held(self, text: str) -> set[str]:
        """Every one of `literals` that occurs in `text`."""
        return set(self._finder.find_matches_as_strings(text, overlapping=True))

    def apply(self, text: str, held: set[str] | None = None) -> str:
        """`text` after each pattern due, in order. `held`: the literals `text` holds, when
        already found (a superset of this one's `literals` will do). A mask may bring a literal
        the text did not hold: after one, the patterns still to come are worked out again."""
        if held is None:
            held = self.held(text)
        due, position = self._due(held, -1), 0
        while position < len(due):
            index = due[position]
            position += 1
            _, requires, scan, pattern = self.scans[index]
            if requires and held.isdisjoint(requires):
                continue
            masked = scan(pattern, text)
            if masked is not text:
                text, held = masked, self.held(masked)
                due, position = self._due(held, index), 0
        return text

    def any_due(self, held: set[str]) -> bool:
        """Whether a text holding `held` (and nothing else of `literals`) has a pattern to try."""
        return not held.isdisjoint(self._by_literal)

    def _due(self, held: set[str], after: int) -> list[int]:
        found: set[int] = set()
        for literal in held:
            found.update(self._by_literal.get(literal, ()))
        return sorted(i for i in found if i > after)

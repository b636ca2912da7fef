"""What a redaction rule is, and the pieces most rules are built from.

A rule is a kind, its patterns, and a decision for each match: the span to mask, or None to keep
the match as it is. Every pattern starts with a literal where it can, because the
regular-expression engine then jumps from one occurrence of it to the next instead of trying the
pattern at every character (0.5 ms a megabyte instead of 30): that is what keeps text cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from ahocorasick_rs import AhoCorasick, Implementation


class Found(NamedTuple):
    """The span of a match to replace by `[redacted:KIND]` (the rule's kind unless named)."""

    start: int
    end: int
    kind: str | None = None


class Pattern:
    """A rule's pattern, compiled the first time a text that could match it is scanned.

    The rules hold some three hundred patterns, and compiling them all took ~150 ms of every
    process that redacts, most of a hook's start-up; a turn is scanned with the few whose
    literal it holds. A text without the literal a pattern starts with (`anchor`, held sound by
    tests/test_redaction_literals.py) cannot match it, so it is never compiled for that text.
    """

    __slots__ = ("_compiled", "literal", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.literal = anchor(pattern)
        self._compiled: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Pattern({self.pattern!r})"

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled

    def absent_from(self, text: str) -> bool:
        """Whether `text` cannot hold a match, known without compiling: once compiled, the
        engine's own skip from one occurrence of the literal to the next is as cheap."""
        return self._compiled is None and self.literal is not None and self.literal not in text


def lazy(pattern: str) -> Pattern:
    return Pattern(pattern)


# What to mask in a match, or None to leave the match alone.
Decision = Callable[[re.Match[str]], Found | None]

MASK_START = "[redacted:"


def mask(kind: str) -> str:
    return f"{MASK_START}{kind}]"


def secret_group(match: re.Match[str]) -> Found | None:
    """The group named `secret`, unless it is already a mask."""
    start, end = match.span("secret")
    if match.string.startswith(MASK_START, start):
        return None
    return Found(start, end)


# A text with more matches than this for one pattern (only hostile text has them: a stored text
# is at most 64,000 characters) is masked from there on as a whole, so the time any text can
# cost stays bounded by the decisions made in Python.
MAX_DECISIONS = 5_000


# For each tuple of words, the last text it was looked for in, and whether one of its words was.
_LAST_CHECK: dict[int, tuple[str, bool]] = {}
# From this many words on, one automaton's pass finds whether any is in a text: for the spoken
# passwords' hundred words over a few KB, ~8 us against ~95 for a substring test each (a tenth
# of a bulk import's redaction; bench/RESULTS.md).
MANY_WORDS = 8
_FINDERS: dict[int, tuple[tuple[str, ...], AhoCorasick]] = {}


def _holds_any(words: tuple[str, ...], text: str) -> bool:
    # The patterns are tried one after the other on the same text: each tuple of words is
    # looked for once a text (keyed by the tuple itself, which rules may share).
    last = _LAST_CHECK.get(id(words))
    if last is not None and last[0] is text:
        return last[1]
    if len(words) < MANY_WORDS:
        held = any(word in text for word in words)
    else:
        held = bool(_finder(words).find_matches_as_indexes(text))
    _LAST_CHECK[id(words)] = (text, held)
    return held


def _finder(words: tuple[str, ...]) -> AhoCorasick:
    kept = _FINDERS.get(id(words))
    if kept is None or kept[0] is not words:  # (the tuple is kept: its id is not reused)
        kept = (words, AhoCorasick(words, implementation=Implementation.DFA))
        _FINDERS[id(words)] = kept
    return kept[1]


@dataclass(frozen=True)
class Rule:
    kind: str
    patterns: tuple[Pattern, ...]
    # None: every match is masked whole, by the regular-expression engine alone.
    decide: Decision | None = None
    # For the few patterns that cannot start with a literal: skipped unless one of these is in
    # the text (a substring test is far cheaper than trying such a pattern everywhere).
    requires: tuple[str, ...] = ()
    # Words looked for before a pattern of this rule is tried, when not `requires`: rules whose
    # patterns each start with one of their own words (the spoken passwords) share one tuple of
    # all their words, looked for once a text (fifty rules, a hundred words, over a megabyte).
    gate: tuple[str, ...] = ()

    def apply(self, text: str) -> str:
        for pattern in self.patterns:
            text = self.scan(pattern, text)
        return text

    def scan(self, pattern: Pattern, text: str) -> str:
        """`text` with what `pattern` (one of this rule's) finds masked."""
        if not self.tried_on(text):
            return text
        if pattern.absent_from(text):
            return text
        if self.decide is None:
            return pattern.compiled.sub(mask(self.kind), text)
        return applied(text, self.edits(pattern.compiled.finditer(text), text))

    def tried_on(self, text: str) -> bool:
        """Whether this rule's patterns are tried on `text` at all (its gate, or the words it
        requires, are there)."""
        words = self.gate or self.requires
        return not words or _holds_any(words, text)

    def edits(self, matches: Iterable[re.Match[str]], text: str) -> list[Edit]:
        """What masking `matches` (a pattern's matches in `text`, in order) replaces."""
        if self.decide is None:
            whole = mask(self.kind)
            return [(*match.span(), whole) for match in matches]
        found_edits: list[Edit] = []
        kept_from = 0
        for decisions, match in enumerate(matches, start=1):
            if decisions > MAX_DECISIONS:
                start = max(match.start(), kept_from)
                found_edits.append((start, len(text), mask(self.kind)))
                return found_edits
            found = self.decide(match)
            if found is not None:
                # A span may begin before its match (the pattern starts at a literal inside
                # the secret), never inside the previous mask.
                start = max(found.start, kept_from)
                found_edits.append((start, found.end, mask(found.kind or self.kind)))
                kept_from = found.end
        return found_edits


# A span of a text and what replaces it: (start, end, replacement).
Edit = tuple[int, int, str]


def applied(text: str, edits: list[Edit]) -> str:
    """`text` with each of `edits` made, in order (as `Rule.edits` gives them)."""
    if not edits:
        return text
    if len(edits) == 1:
        start, end, replacement = edits[0]
        replaced = text[start:end]
        # The first occurrence of what is replaced is this one: `replace` copies the text
        # once, where slicing and joining copy it twice (a megabyte, at each of its masks).
        if replaced and text.find(replaced, 0, end) == start:
            return text.replace(replaced, replacement, 1)
    pieces: list[str] = []
    kept_from = 0
    for start, end, replacement in edits:
        pieces += (text[kept_from:start], replacement)
        kept_from = end
    pieces.append(text[kept_from:])
    return "".join(pieces)


_VOWELS = frozenset("aeiouy")
_CASE_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_DIGRAPHS = re.compile("ng|th|ch|sh|ph|ck|gh")
_RUNS = ("abcdefghijklmnopqrstuvwxyz", "qwertyuiopasdfghjklzxcvbnm")


def looks_random(value: str) -> bool:
    """Whether letters are key material rather than words (`ZcpmqikFyCpfiuQw` against
    `YourApiKeyHere`, `ollama`, `xxxxxxxxxxxx`): five consonants in a row within a word of the
    name, or case that changes every letter or two, where a name made of words has neither."""
    letters = "".join(char for char in value if char.isascii() and char.isalpha())
    lower = letters.lower()
    if len(letters) < 10 or len(set(lower)) <= 4 or any(lower in run for run in _RUNS):
        return False
    parts = _CASE_PARTS.findall(letters)
    for part in parts:
        consonants = 0
        # `ng`, `th` and their like count once: `lengths` is a word.
        for char in _DIGRAPHS.sub("n", part.lower()):
            consonants = 0 if char in _VOWELS else consonants + 1
            if consonants >= 5:
                return True
    return sum(len(part) <= 2 for part in parts) >= 3


_LITERAL_START = re.compile(r"(?:\(\?P<\w+>)?((?:\\[^A-Za-z0-9]|[^\\()\[\]{}?*+|.^$])+)([?*{]?)")


def anchor(pattern: str) -> str | None:
    """The literal a match of `pattern` starts with (at least two characters), or None: a text
    without it need not be scanned with the pattern at all."""
    found = _LITERAL_START.match(pattern)
    if found is None:
        return None
    literal = re.sub(r"\\(.)", r"\1", found.group(1))
    if found.group(2):  # `ab?`: the last character is optional
        literal = literal[:-1]
    return literal if len(literal) >= 2 else None


def glued_prefixes(prefixes: Iterable[str]) -> list[str]:
    """One pattern start for each of `prefixes`, where no letter or digit comes right before
    it: `token_ghp_…` and `aws-AKIA…` are tokens glued to a word by `_` or `-`, but `risk-` never
    yields an `sk-` key. The literal comes first, so the engine skips from one occurrence of it
    to the next (and a short text without it is not scanned at all); the boundary is checked by
    looking back from behind it."""
    return [f"{re.escape(prefix)}(?<![A-Za-z0-9][\\s\\S]{{{len(prefix)}}})" for prefix in prefixes]


# `ghp_xxxxxxxx…`, `sk-********`: the shape of a token in documentation, not a token.
_NOT_A_PLACEHOLDER = r"(?![xX*.]{8})"


def token(kind: str, prefixes: Iterable[str], body: str) -> Rule:
    """A token recognised by its own prefix; the whole token becomes the mask."""
    return Rule(
        kind,
        tuple(lazy(prefix + _NOT_A_PLACEHOLDER + body) for prefix in glued_prefixes(prefixes)),
    )


def behind(size: int) -> Decision:
    """A decision for a pattern that starts at a literal inside the secret, `size` characters
    after the secret's start (checked by the pattern's own look-behind)."""

    def decide(match: re.Match[str]) -> Found:
        return Found(match.start() - size, match.end())

    return decide


def keyed(
    kind: str, pattern: str, decide: Decision = secret_group, requires: Iterable[str] = ()
) -> Rule:
    """A secret found by what stands around it: only the group named `secret` is masked."""
    return Rule(kind, (lazy(pattern),), decide, tuple(requires))


def near(words: tuple[str, ...], before: int, same_line: bool = True) -> Decision:
    """A decision: mask the `secret` group only when one of `words` stands in the `before`
    characters ahead of the match (on its line, unless not `same_line`)."""

    def decide(match: re.Match[str]) -> Found | None:
        start = match.start()
        window = match.string[max(0, start - before) : start]
        if same_line:
            window = window[window.rfind("\n") + 1 :]
        if not any(word in window for word in words):
            return None
        return secret_group(match)

    return decide


def case_variants(*words: str) -> tuple[str, ...]:
    """`password`, `Password`, `PASSWORD`: the spellings a case-insensitive word is written in."""
    variants: dict[str, None] = {}
    for word in words:
        for variant in (word, word[:1].upper() + word[1:], word.upper()):
            variants.setdefault(variant, None)
    return tuple(variants)


def cases(*words: str) -> str:
    """`password|Password|PASSWORD`: literal alternatives the engine can still skip to, where
    a case-insensitive pattern would be tried at every character."""
    return "|".join(re.escape(variant) for variant in case_variants(*words))

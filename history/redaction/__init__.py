"""Mask secrets in text before it is stored in the search index.

The index keeps people's code conversations, and those routinely hold pasted credentials:
provider API keys and tokens, webhook URLs, key blocks, connection strings, credentials files,
passwords on command lines and in configuration. Every text passes through `redact` before it is
stored; each secret becomes ``[redacted:KIND]`` and the words around it (the variable name,
``Bearer``, the URL's scheme, user and host, the command) stay, so the turn is still found.

The rules run in order: key blocks first (they may hold anything), then tokens that name their
provider, then secrets known by their surroundings, then values of secret-named settings. A mask
is never matched again, so ``redact(redact(text)) == redact(text)``. Each pattern is anchored
on a literal, bounded, and free of nested unbounded repetition, so a megabyte of hostile text
costs a bounded scan per rule.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Final, NamedTuple

from ahocorasick_rs import AhoCorasick

from history.redaction import assignments, context, tokens
from history.redaction.rule import Rule, anchor

__all__ = ["KINDS", "RULES", "redact"]

RULES: Final[tuple[Rule, ...]] = (
    *context.KEY_BLOCKS,
    *tokens.RULES,
    *context.RULES,
    *assignments.RULES,
)

KINDS: Final[tuple[str, ...]] = tuple(
    dict.fromkeys((*(rule.kind for rule in RULES), *assignments.KINDS))
)

# A short text is scanned only with the rules it could hold a secret for: a token-shaped secret
# is 16 or more characters without a space; every other rule needs one of these words. Most
# file paths, tool names and ids hold neither. (A long text is scanned with every rule: it has a
# reason to almost always.)
_SHORT: Final = 4_000
_NAME: Final = 256
_WORDS: Final = (
    "pass", "pwd", "secret", "token", "key", "auth", "bearer", "basic", "begin", "identified",
    "mysql", "mariadb", "redis", "sig=", "machine", "login", "heroku", "://", "-u", "--user",
)  # fmt: skip
# Token-shaped rules run first (a JWT inside `Bearer …` is masked as a JWT, a token inside a
# URL before the URL's password is looked for), then the rules that need one of the words.
_TOKEN_SHAPED: Final = (*context.KEY_BLOCKS[1:], *tokens.RULES, *context.TOKEN_SHAPED)
_NEED_A_WORD: Final = tuple(rule for rule in RULES if rule not in _TOKEN_SHAPED)


# Each pattern with the literal its matches start with and the words its rule requires: a text
# without them is not scanned with it. One Aho-Corasick pass finds which of the literals a text
# holds (testing each with `in` read the text once per pattern: most of redaction's time).
class Scan(NamedTuple):
    literal: str | None
    requires: tuple[str, ...]
    scan: Callable[[re.Pattern[str], str], str]
    pattern: re.Pattern[str]


def _scans(rules: tuple[Rule, ...]) -> tuple[Scan, ...]:
    return tuple(
        Scan(anchor(pattern), rule.requires, rule.scan, pattern)
        for rule in rules
        for pattern in rule.patterns
    )


_TOKEN_SCANS: Final = _scans(_TOKEN_SHAPED)
_WORD_SCANS: Final = _scans(_NEED_A_WORD)
_LITERALS: Final = AhoCorasick(
    sorted(
        {scan.literal for scan in (*_TOKEN_SCANS, *_WORD_SCANS) if scan.literal}
        | {word for scan in (*_TOKEN_SCANS, *_WORD_SCANS) for word in scan.requires}
    )
)
_WORD_FINDER: Final = AhoCorasick(list(_WORDS))
_TOKEN_SHAPE: Final = re.compile(r"\S{16}")


def _held(text: str) -> set[str]:
    """Every literal of `_LITERALS` that occurs in `text`, overlapping ones included."""
    return set(_LITERALS.find_matches_as_strings(text, overlapping=True))


def _scanned(text: str, scans: tuple[Scan, ...]) -> str:
    """`text` (at most `_SHORT` characters) after each of `scans` whose literal and required
    words it holds."""
    held = _held(text)
    for literal, requires, scan, pattern in scans:
        if literal is not None and literal not in held:
            continue
        if requires and held.isdisjoint(requires):
            continue
        masked = scan(pattern, text)
        if masked is not text:  # a mask may hold a literal the text did not
            text, held = masked, _held(masked)
    return text


@functools.lru_cache(maxsize=8192)
def _redact_name(text: str) -> str:
    """Ids, projects, file paths and tool names repeat from turn to turn: each is redacted once."""
    return _redact_short(text)


def _redact_short(text: str) -> str:
    if _TOKEN_SHAPE.search(text):
        text = _scanned(text, _TOKEN_SCANS)
    if _WORD_FINDER.find_matches_as_indexes(text.lower()):
        text = _scanned(text, _WORD_SCANS)
    return text


def redact(text: str) -> str:
    """Return `text` with every secret replaced by ``[redacted:KIND]``, KIND one of `KINDS`."""
    if len(text) <= _NAME:
        return _redact_name(text)
    if len(text) <= _SHORT:
        return _redact_short(text)
    for _, _, scan, pattern in (*_TOKEN_SCANS, *_WORD_SCANS):
        text = scan(pattern, text)
    return text

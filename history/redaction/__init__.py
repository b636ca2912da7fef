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
from typing import TYPE_CHECKING, Final

from ahocorasick_rs import AhoCorasick, Implementation

from history.redaction import assignments, context, cookies, spoken, tokens, wrapped
from history.redaction.rule import Rule
from history.redaction.scanning import Scans
from history.rules_version import RULES_VERSION

if TYPE_CHECKING:
    from history.redaction.long_texts import LongScans

__all__ = ["KINDS", "RULES", "RULES_VERSION", "redact"]


RULES: Final[tuple[Rule, ...]] = (
    *context.KEY_BLOCKS,
    *tokens.RULES,
    *context.RULES,
    *cookies.RULES,
    *spoken.RULES,
    *assignments.RULES,
    *wrapped.RULES,
)

KINDS: Final[tuple[str, ...]] = tuple(
    dict.fromkeys((*(rule.kind for rule in RULES), *assignments.KINDS))
)

# A short text is scanned only with the patterns whose literal it holds (every pattern has one,
# or words it requires), found for both groups of rules in one Aho-Corasick pass. A token-shaped
# secret is also 16 or more characters without a space, checked only when such a pattern is due.
# A long text is scanned with every pattern whose literal it holds, each tried where that
# literal occurs (history/redaction/hits.py).
_SHORT: Final = 4_000
_NAME: Final = 256
# Token-shaped rules run first (a JWT inside `Bearer …` is masked as a JWT, a token inside a
# URL before the URL's password is looked for), then the rules that need a word around them.
_TOKEN_SHAPED: Final = (*context.KEY_BLOCKS[1:], *tokens.RULES, *context.TOKEN_SHAPED)
_NEED_A_WORD: Final = tuple(rule for rule in RULES if rule not in _TOKEN_SHAPED)


_TOKEN_SCANS: Final = Scans(_TOKEN_SHAPED)
_WORD_SCANS: Final = Scans(_NEED_A_WORD)
# A DFA: four times faster than the default automaton over text (3 against 13 µs a turn of
# ~800 characters), for a table of a few hundred kilobytes.
_FINDER: Final = AhoCorasick(
    sorted(_TOKEN_SCANS.literals | _WORD_SCANS.literals), implementation=Implementation.DFA
)
_TOKEN_SHAPE: Final = re.compile(r"\S{16}")


@functools.cache
def _long_scans() -> LongScans:
    """The scans of a long text, loaded with the first one (a hook's turns are short)."""
    from history.redaction.long_texts import LongScans

    return LongScans((*_TOKEN_SHAPED, *_NEED_A_WORD))


@functools.lru_cache(maxsize=8192)
def _redact_name(text: str) -> str:
    """Ids, projects, file paths and tool names repeat from turn to turn: each is redacted once."""
    return _redact_short(text)


def _redact_short(text: str) -> str:
    held: set[str] | None = set(_FINDER.find_matches_as_strings(text, overlapping=True))
    if not held:
        return text
    if _TOKEN_SCANS.any_due(held) and _TOKEN_SHAPE.search(text):
        masked = _TOKEN_SCANS.apply(text, held)
        if masked is not text:
            text, held = masked, None
    return _WORD_SCANS.apply(text, held)


# A code point of a surrogate pair on its own (JSON may hold one: an emoji cut in half). Neither
# UTF-8 nor a database can hold it, so it becomes U+FFFD, the character that says one was lost.
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def redact(text: str) -> str:
    """Return `text` with every secret replaced by ``[redacted:KIND]``, KIND one of `KINDS`, and
    any lone surrogate by U+FFFD."""
    if not text.isascii() and _LONE_SURROGATE.search(text):
        text = _LONE_SURROGATE.sub("\ufffd", text)
    if len(text) <= _NAME:
        return _redact_name(text)
    if len(text) <= _SHORT:
        return _redact_short(text)
    return _long_scans().apply(text)

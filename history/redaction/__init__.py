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

import re
from typing import Final

from history.redaction import assignments, context, tokens
from history.redaction.rule import Rule

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

# Every rule needs a run of 16 token characters (all tokens have one) or one of these words;
# most file paths and tool names have neither and are returned after this one scan. (Only short
# texts are checked first: the check costs up to 16 steps a character, and a long text has a
# reason to be looked at almost always.)
_SHORT = 2_000
_WORTH_A_LOOK: Final = re.compile(
    r"[A-Za-z0-9_+/=.~-]{16}|://|-u[ \t]|--user"
    r"|(?i:pass|pwd|secret|token|key|auth|cred|bearer|basic|begin|identified|mysql|mariadb|redis"
    r"|sig=|machine)"
)


def redact(text: str) -> str:
    """Return `text` with every secret replaced by ``[redacted:KIND]``, KIND one of `KINDS`."""
    if len(text) <= _SHORT and not _WORTH_A_LOOK.search(text):
        return text
    for rule in RULES:
        text = rule.apply(text)
    return text

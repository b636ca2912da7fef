"""The rest of a secret wrapped onto the following lines.

A terminal, an editor or a copy from a narrow window breaks a long key over two or three lines;
the rules mask the first part, and the line after it is key material alone on its line. That
line is masked too, as the same kind, when it is one run of key characters (base64 or a
token's alphabet, `=` only as padding at its end) with the look of random material: a digit
and letters of both cases, or a digit among 16 or more, or letters no word is made of. Runs
after the last rule, since it needs the mask of the first part; the newline may be written
`\\n`, as in JSON.
"""

from __future__ import annotations

import re
from typing import Final

from history.redaction.rule import Found, Rule, lazy, looks_random

_NEWLINE: Final = r"(?:(?:\\r)?\\n|\r?\n)[ \t]{0,40}+"
_PART: Final = r"[A-Za-z0-9+/_-]{4,400}+={0,2}(?=[ \t]*(?:\\r|\\n|\r|\n|$|[\"'`,;]))"
_CONTINUED: Final = lazy(r"\[redacted:(?P<kind>[a-z0-9-]{1,40}+)\](?=" + _NEWLINE + _PART + ")")
_NEXT_LINE: Final = re.compile(_NEWLINE + "(?P<part>" + _PART + ")")
# A key wraps over a few lines at most; a column of ids under a mask is something else.
_MOST_LINES: Final = 3


def _random(part: str) -> bool:
    part = part.rstrip("=")
    digits = any(char.isdigit() for char in part)
    cases = any(char.islower() for char in part) and any(char.isupper() for char in part)
    if digits and (cases or len(part) >= 16):
        return True
    return len(part) >= 10 and looks_random(part)


def _continued(match: re.Match[str]) -> Found | None:
    start = end = match.end()
    for _ in range(_MOST_LINES):
        line = _NEXT_LINE.match(match.string, end)
        if line is None or not _random(line.group("part")):
            break
        if end == start:
            start = line.start("part")
        end = line.end()
    if end == start:
        return None
    return Found(start, end, match.group("kind"))


RULES: Final[tuple[Rule, ...]] = (Rule("secret", (_CONTINUED,), _continued),)

"""Session cookies: the `Cookie` and `Set-Cookie` headers, curl's `-b` / `--cookie`.

A session cookie is as good as a password to whoever holds it. In a `Cookie` header every
value from the first one to the header's end is masked (the names of the others go with them:
which one holds the session is anyone's guess); in `Set-Cookie` only the value, not the
attributes after it (`Path=/; HttpOnly`). A header whose values are all short words
(`Cookie: theme=dark; lang=en`) holds no session and stays.
"""

from __future__ import annotations

import re
from typing import Final

from history.redaction.rule import MASK_START, Found, Rule, lazy, looks_random

_NAME: Final = r"[^\s=;,\"'`]{1,100}+"
_HEADER: Final = (
    r"[ \t]*(?::|=[ \t]*[\"'`])[ \t]*(?P<name>" + _NAME + r")=(?P<secret>[^\r\n\"'`\\]{1,4000}+)"
)
_CURL: Final = r"[ \t]+(?P<quote>[\"']?)(?P<name>" + _NAME + r")=(?P<secret>[^\r\n\"'`\\]{1,4000}+)"


def _holds_a_session(values: str) -> bool:
    for pair in values.split(";"):
        value = pair.partition("=")[2] if "=" in pair else pair
        value = value.strip()
        if len(value) >= 16 or (len(value) >= 8 and any(char.isdigit() for char in value)):
            return True
        if looks_random(value):
            return True
    return False


def _cookie(match: re.Match[str]) -> Found | None:
    start, end = match.span("secret")
    text = match.string
    if text.startswith(MASK_START, start):
        return None
    values = text[start:end].rstrip()
    if text.endswith(("Set-", "set-", "SET-"), 0, match.start()):
        values = values.partition(";")[0].rstrip()
    elif match.groupdict().get("quote") == "":
        values = values.split(" ", 1)[0]  # curl -b name=value, unquoted: up to the next space
    if not _holds_a_session(values):
        return None
    return Found(start, start + len(values))


def _curl(match: re.Match[str]) -> Found | None:
    line = match.string[max(0, match.start() - 200) : match.start()].rpartition("\n")[2]
    return _cookie(match) if "curl" in line else None


RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "cookie",
        tuple(lazy(word + _HEADER) for word in ("Cookie", "cookie", "COOKIE")),
        _cookie,
    ),
    Rule(
        "cookie",
        (lazy(r"-b(?<=[ \t]-b)" + _CURL), lazy(r"--cookie" + _CURL)),
        _curl,
    ),
)

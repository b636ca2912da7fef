"""Mask secrets in text before it is stored in the search index.

The index keeps people's code conversations, and those routinely contain pasted credentials:
API keys (OpenAI, Anthropic, GitHub, GitLab, AWS, Slack, Stripe, Google, Hugging Face, npm),
JWTs, ``Bearer`` tokens, PEM private-key blocks, passwords inside URLs and the values of
``UPPER_SNAKE`` environment variables whose name says KEY, SECRET, TOKEN or PASSWORD. No
secret may reach the database file, so every text goes through `redact` first; each secret
becomes ``[redacted:KIND]`` and the surrounding words (the variable name, ``Bearer``, the URL's
scheme, user and host) are kept so the turn stays searchable.

Every pattern is compiled once, anchored at a boundary and built without nested quantifiers,
so a megabyte of hostile text is scanned in linear time. Masks never match again, so
``redact(redact(text)) == redact(text)``.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["KINDS", "redact"]

KINDS: Final[tuple[str, ...]] = (
    "openai-key",
    "anthropic-key",
    "github-token",
    "gitlab-token",
    "aws-access-key-id",
    "slack-token",
    "stripe-key",
    "google-api-key",
    "huggingface-token",
    "npm-token",
    "jwt",
    "bearer-token",
    "private-key",
    "url-password",
    "secret",
)

# A token starts where a word does not continue: "risk-…" never yields an "sk-" key.
_START = r"(?<![A-Za-z0-9_-])"
# Random key material has an upper-case letter or a digit somewhere; kebab-case prose does not.
_MIXED = r"(?=[A-Za-z0-9_-]*?[0-9A-Z])"
_NOT_A_MASK = r"(?!\[redacted:)"

_ENV_NAME = (
    r"(?<![A-Za-z0-9_])"
    # Some _-separated part of the name ends in a keyword: API_KEY, DB_PASSWORD, GITHUB_TOKEN_RO,
    # but not MAX_TOKENS or TOKENIZER_PATH.
    r"(?=[A-Z0-9_]{0,100}?(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD)(?![A-Z0-9]))"
    r"[A-Z][A-Z0-9_]{0,100}+"
)
_ENV_SEPARATOR = (
    r"""(?:["']\]?)?[ \t]*"""  # a JSON key's closing quote, os.environ["…"]
    r"(?::[ \t]*[A-Za-z_][A-Za-z0-9_.]{0,40}(?:\[[A-Za-z0-9_., |]{0,60}\])?[ \t]*=(?!=)"
    r"|=(?!=)|:)"  # a type annotation, then `=`; or `=` (not `==`); or YAML's `:`
    r"[ \t]*"
)
_ENV_VALUE = (
    _NOT_A_MASK + r"""(?:(?<=")[^"\n]++(?=")|(?<=')[^'\n]++(?=')"""
    # A bare value, unless it is a literal, a $reference or code: a call, an index, a type.
    r"""|(?<!["'])(?![$=]|(?:None|null|nil|undefined|True|False|true|false)(?![A-Za-z0-9_]))"""
    r"""[^\s"'`()\[\]{}<>,;]++(?![(\["']|[ \t]*=))"""
)

# Applied in order; a later pattern never rewrites an earlier mask.
_RULES: Final[tuple[tuple[re.Pattern[str], str], ...]] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"(?s:.*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*)",
            "[redacted:private-key]",
        ),
        (
            _START + r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            "[redacted:jwt]",
        ),
        (_START + r"sk-ant-[A-Za-z0-9_-]{20,}", "[redacted:anthropic-key]"),
        (_START + r"sk-" + _MIXED + r"[A-Za-z0-9_-]{20,}", "[redacted:openai-key]"),
        (_START + r"(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{30,}", "[redacted:github-token]"),
        (_START + r"glpat-[A-Za-z0-9_-]{20,}", "[redacted:gitlab-token]"),
        (
            _START + r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9_-])",
            "[redacted:aws-access-key-id]",
        ),
        (_START + r"xox[abprs]-(?=[A-Za-z0-9-]*?[0-9])[A-Za-z0-9-]{10,}", "[redacted:slack-token]"),
        (
            _START + r"[sr]k_(?:live|test)_(?=[A-Za-z0-9]*?[0-9A-Z])[A-Za-z0-9]{16,}",
            "[redacted:stripe-key]",
        ),
        (_START + r"AIza[A-Za-z0-9_-]{35,}", "[redacted:google-api-key]"),
        (_START + r"hf_(?=[A-Za-z0-9]*?[0-9A-Z])[A-Za-z0-9]{30,}", "[redacted:huggingface-token]"),
        (_START + r"npm_(?=[A-Za-z0-9]*?[0-9A-Z])[A-Za-z0-9]{30,}", "[redacted:npm-token]"),
        (
            # A token has a digit, or is too long to be a word: "Bearer tokens expire" stays.
            r"(?<![A-Za-z0-9_])(?P<keep>(?i:bearer)[ \t]+)"
            + r"(?:(?=[A-Za-z0-9._~+/=-]*?[0-9])[A-Za-z0-9._~+/=-]{16,}|[A-Za-z0-9._~+/=-]{32,})",
            r"\g<keep>[redacted:bearer-token]",
        ),
        (
            r"(?P<keep>://(?:\[redacted:[a-z-]{1,30}\]|[^\s:/@\[\]]{0,100}):)"
            + _NOT_A_MASK
            + r"[^\s/@]{1,200}+(?=@)",
            r"\g<keep>[redacted:url-password]",
        ),
        (
            r"(?P<keep>" + _ENV_NAME + _ENV_SEPARATOR + r"""["']?)""" + _ENV_VALUE,
            r"\g<keep>[redacted:secret]",
        ),
    )
)


# Every rule above needs one of these literals; text with none of them is returned as it is after
# one scan instead of fifteen (most of what an import stores: prose, paths, tool names).
_ANY_RULE_ANCHOR: Final = re.compile(
    r"-----BEGIN|eyJ|sk-|gh[pousr]_|github_pat_|glpat-|AKIA|ASIA|xox[abprs]-|k_(?:live|test)_"
    r"|AIza|hf_|npm_|(?i:bearer)|://|KEY|SECRET|TOKEN|PASSW"
)


def redact(text: str) -> str:
    """Return `text` with every secret replaced by ``[redacted:KIND]``, KIND one of `KINDS`."""
    if not _ANY_RULE_ANCHOR.search(text):
        return text
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text

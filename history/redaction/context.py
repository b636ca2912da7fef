"""Secrets known by what stands around them: key blocks, headers, URLs, connection strings,
credentials files and command lines. Only the secret is masked; the words around it stay, so
`mysql -u root -p[redacted:cli-password] shop` is still found by `mysql` and `shop`.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Final

from history.redaction.rule import Decision, Found, Rule, glued_prefixes, keyed, secret_group

# `"password": "…"`, `password = '…'`, `key => …`, also inside JSON that was itself quoted.
_QUOTE: Final = r"""(?:\\?["'])?"""
_SEPARATOR: Final = _QUOTE + r"[ \t]*(?:=>|:=|=|:)[ \t]*" + _QUOTE
# A value on a command line: quoted, or up to the next space; not `$VAR`, `<key>` or `sk-...`.
_ARGUMENT: Final = (
    r"""(?![$<]|["']?[^\s'"]*(?:\.\.\.|…))"""
    r"""(?:'[^'\n]++'|"[^"\n]++"|[^\s'"`]++)"""
)


def _decodes_to(prefix_length: int, needle: bytes) -> Decision:
    """A decision: mask the `secret` group when its first base64 characters decode to text
    holding `needle` (`user:password` in a Basic header; PRIVATE in an encoded key block)."""

    def decide(match: re.Match[str]) -> Found | None:
        encoded = match.group("secret")[:prefix_length]
        encoded += "=" * (-len(encoded) % 4)
        try:
            decoded = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return None
        return Found(*match.span("secret")) if needle in decoded else None

    return decide


def _near(words: tuple[str, ...], before: int, same_line: bool = True) -> Decision:
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


def _literal_first(literals: list[str], rest: str) -> tuple[re.Pattern[str], ...]:
    """One pattern per literal, so each can be skipped to (see rule.py)."""
    return tuple(re.compile(re.escape(literal) + rest) for literal in literals)


_PEM: Final = re.compile(
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r"(?s:.*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*)"
)

# Applied before the provider tokens: a key block may hold anything.
_PEM_IN_BASE64: Final = keyed(
    # A key block, base64-encoded again (kubeconfig's client-key-data, Kubernetes secrets).
    "private-key",
    r"LS0tLS1CRUdJTi(?<![A-Za-z0-9+/]LS0tLS1CRUdJTi)(?P<secret>[A-Za-z0-9+/=]{20,}+)",
    decide=lambda match: _pem_in_base64(match),
)
_PUTTY: Final = keyed(
    "putty-private-key",
    r"Private-Lines:[ \t]*[0-9]{1,3}(?P<secret>(?:\r?\n[A-Za-z0-9+/=]{1,100}+)++)",
)
KEY_BLOCKS: Final[tuple[Rule, ...]] = (Rule("private-key", (_PEM,)), _PEM_IN_BASE64, _PUTTY)


def _pem_in_base64(match: re.Match[str]) -> Found | None:
    # The prefix is `-----BEGIN`; the key's kind follows within the first 60 characters.
    encoded = "LS0tLS1CRUdJTi" + match.group("secret")[:46]
    encoded = encoded[: len(encoded) // 4 * 4]
    try:
        decoded = base64.b64decode(encoded)
    except (binascii.Error, ValueError):
        return None
    if b"PRIVATE" not in decoded:
        return None
    return Found(*match.span())


# Applied after the provider tokens (a JWT inside `Bearer …` is masked as a JWT).
_JWT: Final = Rule(
    "jwt",
    tuple(
        re.compile(prefix + r"[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+")
        for prefix in glued_prefixes(["eyJ"])
    ),
)
# Rules whose secret is a run of 16 or more token characters (see `redact`'s first check).
TOKEN_SHAPED: Final[tuple[Rule, ...]] = (_PEM_IN_BASE64, _PUTTY, _JWT)

RULES: Final[tuple[Rule, ...]] = (
    _JWT,
    Rule(
        "aws-secret-access-key",
        _literal_first(
            ["secret_access_key", "SECRET_ACCESS_KEY", "ecretAccessKey", "aws_secret_key"],
            _SEPARATOR + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ),
        secret_group,
    ),
    Rule(
        "aws-session-token",
        _literal_first(
            ["session_token", "SESSION_TOKEN", "essionToken"],
            _SEPARATOR + r"(?P<secret>[A-Za-z0-9/+=]{100,}+)",
        ),
        secret_group,
    ),
    keyed("azure-storage-key", r"AccountKey=(?P<secret>[A-Za-z0-9+/]{40,}+={0,2})"),
    keyed("azure-shared-access-key", r"SharedAccessKey=(?P<secret>[A-Za-z0-9+/]{30,}+={0,2})"),
    keyed("azure-sas-token", r"sig=(?<=[?&]sig=)(?P<secret>[A-Za-z0-9%+/=]{30,}+)"),
    Rule(
        "basic-auth",
        _literal_first(
            ["asic", "ASIC"],
            r"(?<=[Bb]asic|BASIC)(?<![A-Za-z0-9_][A-Za-z]{5})[ \t]+"
            r"(?P<secret>[A-Za-z0-9+/]{8,}+={0,2})",
        ),
        _decodes_to(400, b":"),
    ),
    Rule(
        # A token has a digit, or is too long to be a word: "Bearer tokens expire" stays.
        "bearer-token",
        _literal_first(
            ["earer", "EARER"],
            r"(?<=[Bb]earer|BEARER)(?<![A-Za-z0-9_][A-Za-z]{6})[ \t]+"
            r"(?P<secret>(?=[A-Za-z._~+/=-]{0,60}+[0-9])[A-Za-z0-9._~+/=-]{16,}+"
            r"|[A-Za-z0-9._~+/=-]{32,}+)",
        ),
        secret_group,
    ),
    Rule(
        "auth-header-token",
        _literal_first(
            ["uthorization", "UTHORIZATION"],
            _SEPARATOR + r"(?:Token|token|Bot|SSWS|Api-Key|ApiKey|GenieKey|Key|key)[ \t]+"
            r"(?P<secret>[A-Za-z0-9._~+/=:-]{12,}+)",
        ),
        secret_group,
    ),
    keyed(
        # A password may hold `/`, but `host:8080/path@…` is a port and a path.
        "url-password",
        r"://(?:\[redacted:[a-z0-9-]{1,40}\]|[^\s:/@\[\]]{0,100}+):(?![0-9]{1,5}/)"
        r"(?P<secret>[^\s/@]++(?:/[^\s/@]++){0,4}+)(?=@)",
    ),
    keyed(
        "npmrc-auth-token",
        r"_auth(?<![A-Za-z0-9]_auth)(?:Token)?[ \t]*=[ \t]*[\"']?(?![$\"'])"
        r"(?P<secret>[^\s\"']{6,}+)",
    ),
    keyed(
        "npmrc-auth-token",
        r"_password(?<![A-Za-z0-9]_password)[ \t]*=[ \t]*[\"']?(?![$\"'])(?P<secret>[^\s\"']{4,}+)",
    ),
    keyed(
        # `mysql -u root -pS3cret`: the password glued to -p (with a space it would prompt).
        "cli-password",
        r"-p(?<=[ \t]-p)(?![\s$-])(?P<secret>" + _ARGUMENT + ")",
        decide=_near(("mysql", "mariadb"), 200),
    ),
    keyed(
        "cli-password",
        r"-p(?<=[ \t]-p)[ \t]*(?P<secret>" + _ARGUMENT + ")",
        decide=_near(("sshpass", "docker login", "podman login", "helm registry login"), 200),
    ),
    keyed(
        "cli-password",
        r"-a(?<=[ \t]-a)[ \t]+(?P<secret>" + _ARGUMENT + ")",
        decide=_near(("redis-cli",), 200),
    ),
    keyed(
        # `--password=…` / `--token …`; with a space the value must look like a secret.
        "cli-password",
        r"--(?<![A-Za-z0-9_-]--)(?:password|passwd|pass|db-password|token|api-key|apikey|secret"
        r"|client-secret|auth-token|access-token|private-key)(?![A-Za-z0-9_-])"
        r"(?:=|[ \t]+(?=[^\s]{0,60}[^A-Za-z\s]|[^\s]{12}))(?P<secret>" + _ARGUMENT + ")",
    ),
    Rule(
        # curl -u user:password, httpie -a user:password; not docker's -u 1000:1000.
        "cli-password",
        tuple(
            re.compile(
                flag + r"[ \t]+[\"']?(?![0-9]+:)[^\s:\"'@]{1,100}+:(?P<secret>(?!\$)[^\s\"']++)"
            )
            for flag in (r"-u(?<=[ \t]-u)", r"-a(?<=[ \t]-a)", "--user")
        ),
        secret_group,
    ),
    Rule(
        "sql-password",
        _literal_first(
            ["IDENTIFIED BY", "identified by", "assword", "ASSWORD"],
            r"[ \t]+'(?P<secret>[^'\n]++)'",
        ),
        secret_group,
    ),
    keyed(
        "netrc-password",
        r"passw(?<![A-Za-z0-9_-]passw)(?:ord|d)[ \t]+"
        r"(?P<secret>[^\s]++)",
        decide=_near(("login",), 300, same_line=False),
        requires=("machine",),
    ),
)

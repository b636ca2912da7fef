"""Secrets known by what stands around them: key blocks, headers, URLs, connection strings,
credentials files and command lines. Only the secret is masked; the words around it stay, so
`mysql -u root -p[redacted:cli-password] shop` is still found by `mysql` and `shop`.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
from typing import Final

from history.redaction import commands
from history.redaction.rule import (
    Decision,
    Found,
    Pattern,
    Rule,
    glued_prefixes,
    keyed,
    lazy,
    looks_random,
    secret_group,
)

# `"password": "…"`, `password = '…'`, `key => …`, also inside JSON that was itself quoted.
_QUOTE: Final = r"""(?:\\?["'])?"""
_SEPARATOR: Final = _QUOTE + r"[ \t]*(?:=>|:=|=|:)[ \t]*" + _QUOTE
# `aws configure set aws_secret_access_key …`: where the value's shape is the provider's own.
_SEPARATOR_OR_SPACE: Final = f"(?:{_SEPARATOR}|[ \t]+{_QUOTE})"


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


def _literal_first(literals: list[str], rest: str) -> tuple[Pattern, ...]:
    """One pattern per literal, so each can be skipped to (see rule.py)."""
    return tuple(lazy(re.escape(literal) + rest) for literal in literals)


_PEM: Final = lazy(
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
        lazy(prefix + r"[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{10,}+")
        for prefix in glued_prefixes(["eyJ"])
    ),
)
# Rules whose secret is a run of 16 or more token characters (see `redact`'s first check).
TOKEN_SHAPED: Final[tuple[Rule, ...]] = (_PEM_IN_BASE64, _PUTTY, _JWT)


def _token_like(match: re.Match[str]) -> Found | None:
    value = match.group("secret")
    if len(value) >= 32 or any(char.isdigit() for char in value) or looks_random(value):
        return secret_group(match)
    return None


# `.netrc`: `machine <host> login <name> password <secret>`, on one line or several.
_NETRC_ENTRY: Final = re.compile(r"(?:machine[ \t\n]+\S+|default)[ \t\n]+login[ \t\n]+\S+[ \t\n]+$")


def _in_netrc(match: re.Match[str]) -> Found | None:
    window = match.string[max(0, match.start() - 300) : match.start()]
    return secret_group(match) if _NETRC_ENTRY.search(window) else None


# `host:port:database:user:password`, a line of `.pgpass` (a `:` in a field is written `\:`),
# looked for only where the file, its variable or a usual port is named: nothing else
# distinguishes the line from any five fields joined by colons. The pattern starts at the
# colon before the port (a character the engine skips to); the host is read back from there.
_PGPASS_FIELD: Final = r"(?:[^\s:'\"\\]|\\.)"
_PGPASS: Final = keyed(
    "pgpass-password",
    r":(?:[0-9]{1,5}+|\*):" + _PGPASS_FIELD + "{1,100}+:" + _PGPASS_FIELD + "{1,100}+:"
    r"(?P<secret>" + _PGPASS_FIELD + r"{1,200}+)(?=['\"]|\s|$)",
    decide=lambda match: _after_a_host(match),
    requires=("pgpass", "PGPASS", ":5432:", ":5433:", ":6432:", ":*:"),
)
_HOST_CHARS: Final = frozenset(string.ascii_letters + string.digits + ".-_*[]")


def _after_a_host(match: re.Match[str]) -> Found | None:
    text, start = match.string, match.start()
    begin = start
    while begin > 0 and start - begin < 253 and text[begin - 1] in _HOST_CHARS:
        begin -= 1
    if begin == start or (begin > 0 and text[begin - 1] not in " \t\n'\"/"):
        return None
    return secret_group(match)


# ngrok's authtoken: a digit, 20-odd letters and digits, `_`, 20-odd more. Its own key after
# `authtoken` (a command, a flag, `authtoken:` in ngrok.yml), or that shape where ngrok is named.
_NGROK_TOKEN: Final = r"[1-9][A-Za-z0-9]{20,30}_[A-Za-z0-9]{15,30}(?![A-Za-z0-9_])"
_NGROK: Final = (
    Rule(
        "ngrok-token",
        tuple(
            lazy(word + r"[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<secret>" + _NGROK_TOKEN + ")")
            for word in ("authtoken", "AUTHTOKEN", "authToken")
        ),
        secret_group,
    ),
    keyed(
        "ngrok-token",
        r"(?P<secret>[1-9](?<![A-Za-z0-9_][1-9])" + _NGROK_TOKEN[5:] + ")",
        requires=("ngrok", "NGROK"),
    ),
)

# `<password>…</password>` (Maven's settings.xml, many an XML configuration).
_XML_TAGS: Final = (
    "password",
    "Password",
    "passwd",
    "passphrase",
    "token",
    "secret",
    "apiKey",
    "api_key",
    "clientSecret",
    "client_secret",
    "accessToken",
    "access_token",
    "privateKey",
)
_XML: Final = Rule(
    "password",
    (
        lazy(
            "<(?P<tag>" + "|".join(_XML_TAGS) + r")>[ \t]*(?![$%{]|\*\*)"
            r"(?P<secret>[^<>\n]{1,200}+)</(?P=tag)>"
        ),
    ),
    lambda match: _tag_value(match),
    requires=tuple(f"<{tag}>" for tag in _XML_TAGS),
)


def _tag_value(match: re.Match[str]) -> Found | None:
    tag = match.group("tag").lower()
    kind = "password" if tag.startswith("pass") else "api-key" if "api" in tag else "secret"
    value = match.group("secret").strip()
    if kind != "password" and (" " in value or not value or len(value) < 8):
        return None
    return Found(*match.span("secret"), kind)


# PHP's `define('DB_PASSWORD', '…');` (WordPress's wp-config.php, its keys and salts too).
_PHP_DEFINE: Final = keyed(
    "password",
    r"define\([ \t]*(['\"])(?P<name>[A-Z0-9_]{0,40}+)\1[ \t]*,[ \t]*(['\"])"
    r"(?P<secret>[^'\"\n]{1,200}+)\3",
    decide=lambda match: _defined_secret(match),
)


def _defined_secret(match: re.Match[str]) -> Found | None:
    name, value = match.group("name"), match.group("secret")
    if name.endswith(("PASSWORD", "PASS", "PWD")):
        return Found(*match.span("secret"), "password")
    if not name.endswith(("SECRET", "TOKEN", "KEY", "SALT")) or " " in value or value[0] in "$<":
        return None  # WordPress's `put your unique phrase here` stays
    return Found(*match.span("secret"), "secret")


RULES: Final[tuple[Rule, ...]] = (
    _JWT,
    Rule(
        "aws-secret-access-key",
        _literal_first(
            ["secret_access_key", "SECRET_ACCESS_KEY", "ecretAccessKey", "aws_secret_key"],
            _SEPARATOR_OR_SPACE + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ),
        secret_group,
    ),
    Rule(
        "aws-session-token",
        _literal_first(
            ["session_token", "SESSION_TOKEN", "essionToken"],
            _SEPARATOR_OR_SPACE + r"(?P<secret>[A-Za-z0-9/+=]{100,}+)",
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
        # A token has a digit, is too long to be a word or is random letters:
        # "Bearer tokens expire" and `Bearer AuthenticationRequired` stay.
        "bearer-token",
        _literal_first(
            ["earer", "EARER"],
            r"(?<=[Bb]earer|BEARER)(?<![A-Za-z0-9_][A-Za-z]{6})[ \t]+"
            r"(?P<secret>[A-Za-z0-9._~+/=-]{16,}+)",
        ),
        _token_like,
    ),
    Rule(
        # docker's config.json: `"auths": {"registry": {"auth": "<base64 of user:password>"}}`
        "basic-auth",
        _literal_first(
            ['"auth"', '\\"auth\\"'],
            r"[ \t]*:[ \t]*\\?\"(?P<secret>[A-Za-z0-9+/]{4,}+={0,2})\\?\"",
        ),
        _decodes_to(400, b":"),
    ),
    Rule(
        "auth-header-token",
        _literal_first(
            ["uthorization", "UTHORIZATION"],
            _SEPARATOR + r"(?:Token|token|Bot|SSWS|Api-Key|ApiKey|Api-Token|GenieKey|Key|key|OAuth"
            r"|Splunk|JWT)[ \t]+"
            r"(?P<secret>[A-Za-z0-9._~+/=:-]{12,}+)",
        ),
        secret_group,
    ),
    keyed(
        # `https://<token>@github.com/…`: a token as the user name, no password after it.
        "url-token",
        r"://(?P<secret>(?=[A-Za-z_-]{0,40}+[0-9])[A-Za-z0-9_-]{20,200}+)(?=@)",
    ),
    keyed(
        # A password may hold `/`, but `host:8080/path@…` is a port and a path.
        "url-password",
        r"://(?:\[redacted:[a-z0-9-]{1,40}\]|[^\s:/@\[\]]{0,100}+):(?![0-9]{1,5}/)"
        r"(?!<[^\s>@]{0,40}+>@|\$\{|\$[A-Za-z_]{1,40}+@)"
        r"(?P<secret>[^\s/@]++(?:/[^\s/@]++){0,4}+)(?=@)",
    ),
    keyed(
        "npmrc-auth-token",
        r"_auth(?<![A-Za-z0-9]_auth)(?:Token)?[ \t]*=[ \t]*[\"']?(?![$\"'])"
        r"(?P<secret>[^\s\"']{6,}+)",
    ),
    keyed(
        # `npm config set //registry/:_authToken <token>`
        "npmrc-auth-token",
        r"_authToken[ \t]+(?![$\"'])(?P<secret>(?=[a-z]{0,16}+[0-9A-Z])[^\s\"']{20,}+)",
    ),
    keyed(
        "npmrc-auth-token",
        r"_password(?<![A-Za-z0-9]_password)[ \t]*=[ \t]*[\"']?(?![$\"'])(?P<secret>[^\s\"']{4,}+)",
    ),
    *commands.RULES,
    Rule(
        "sql-password",
        _literal_first(
            ["IDENTIFIED BY", "identified by", "assword", "ASSWORD"],
            r"[ \t]+'(?P<secret>[^'\n]++)'",
        ),
        secret_group,
    ),
    _PGPASS,
    *_NGROK,
    _XML,
    _PHP_DEFINE,
    keyed(
        "netrc-password",
        r"passw(?<![A-Za-z0-9_-]passw)(?:ord|d)[ \t]+(?![<$])"
        r"(?P<secret>[^\s]++)",
        decide=_in_netrc,
        requires=("machine", "default"),
    ),
)

"""A value given to a name that says it is secret, in any language's way of giving one.

`DB_PASSWORD=…`, `MYSQL_PWD=…`, `REDIS_AUTH=…` (environment and `.env`), `password = "…"`,
`db_password=…`, `Password=…;` (connection strings), `password: …` (YAML), `"apiKey": "…"` (JSON),
`client_secret=…` (query strings, INI), `'password' => '…'`, `X-Api-Key: …`. The pattern finds
a secret word followed by a separator and a value; the decision below reads the whole name and
the value, and keeps what is ordinary configuration or code:

- a name with a word that describes the secret rather than holding it: `PASSWORD_MIN_LENGTH`,
  `TOKEN_EXPIRY_SECONDS`, `SECRET_KEY_LENGTH`, `JWT_SECRET_ALGORITHM`, `ENCRYPTION_KEY_PATH`,
  `KEY_ROTATION_DAYS`, `max_tokens`;
- in a lower-case or camelCase name, a secret word that is not the name's last word
  (`token_count`, `password_field`), and a bare `key` (`sort_key`, `"key": "id"`);
- a value that is code, not a secret: a call, an index, an attribute (`self.password`), a name
  that itself says password or token (`password=password`), a type (`password: str`), a
  literal (`None`, `true`) or a reference (`$DB_PASSWORD`, `${{ secrets.X }}`).
"""

from __future__ import annotations

import functools
import re
from typing import Final

from history.redaction.rule import (
    MASK_START,
    Found,
    Rule,
    case_variants,
    lazy,
    looks_random,
    secret_group,
)

# `pass` finds password, passwd and passphrase too.
_WORDS: Final = ("pass", "pwd", "secret", "token", "auth", "key")
# What may follow the word within the name. In lower case and camelCase the word ends the name
# (a digit may follow); an UPPER_SNAKE name may go on for a few parts (`GITHUB_TOKEN_RO`). The
# rest of the name before the word is read back from the text by `_whole_name`.
_PASS_ENDINGS: Final = {"pass": "(?:word|wd|phrase)?", "Pass": "(?:word|wd|phrase)?"}
_UPPER_TAIL: Final = r"(?:WORD|WD|PHRASE)?(?:_[A-Z0-9]{1,12}+){0,3}+"

_AFTER_THE_NAME: Final = (
    r"(?P<sep>(?:\\?[\"'])?\]?[ \t]*(?::[ \t]*[A-Za-z_][A-Za-z0-9_.]{0,40}+(?:\[[^\]\n]{0,60}+\])?"
    r"[ \t]*=(?!=)|=>|:=|=(?!=)|:(?![:/\\=]))[ \t]*)"
    r"(?:\\?\"(?P<dq>(?:[^\"\\\n]|\\[^\"\n])++)"
    r"|'(?P<sq>[^'\n]++)"
    r"|`(?P<bq>[^`\n]++)"
    r"|(?P<bare>[^\s\"'`,;()\[\]{}<>&]++))"
)


def _tail(word: str) -> str:
    if word.isupper():
        return _UPPER_TAIL
    if word == "key":
        return "(?:_base)?+[0-9]{0,3}+"  # Rails's `secret_key_base`
    return _PASS_ENDINGS.get(word, "") + "[0-9]{0,3}+"


# One pattern for each spelling of each word, so each can be skipped to (see rule.py).
_PATTERNS: Final = tuple(
    lazy(f"(?P<word>{re.escape(word)})(?P<tail>{_tail(word)})" + _AFTER_THE_NAME)
    for word in case_variants(*_WORDS)
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NAME_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_NAME_PARTS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# Words that say what a setting is about, not what the secret is.
_DESCRIPTORS: Final = _words(
    "length len min max minimum maximum days day hours hour minutes seconds secs ms millis ttl "
    "expiry expires expiration lifetime timeout interval rotation age path file dir directory "
    "algorithm alg algo name names type header field param prefix suffix size bits count limit "
    "enabled enable required policy version format encoding url uri endpoint env var hint reset "
    "label placeholder regex pattern mode strategy provider backend store source location region "
    "arn issuer audience scope scopes rounds iterations strength complexity history attempts "
    "retries cache column table method user username login email id ids usage validator "
    "validation reuse rules generator hasher strategy class module level"
)
# `*_KEY` in an environment name is a secret, unless it says which record or object it finds.
_ORDINARY_KEY_QUALIFIERS: Final = _words(
    "sort primary foreign cache partition object lookup idempotency routing group shard public "
    "publishable hot map dict index unique composite s3 dedup i18n translation hash row "
    "range"
)
# In lower-case code a bare `key` is a dictionary's; these say it is a credential.
_SECRET_KEY_QUALIFIERS: Final = _words(
    "api secret access private account auth client signing master encryption license "
    "subscription shared service app consumer storage admin deploy webhook sas"
)
_PASSWORD_WORDS: Final = frozenset(("password", "passwd", "passphrase", "pwd", "pass"))
# Lower-case compounds are one part: `identitytoken` (docker), `authtoken`, `accesstoken`.
_SECRET_PART: Final = frozenset(
    (
        *_PASSWORD_WORDS,
        *_words(
            "secret token auth apikey secretkey authtoken accesstoken apitoken refreshtoken "
            "identitytoken registrytoken sessiontoken bearertoken bottoken authkey privatekey "
            "clientsecret"
        ),
    )
)
_UPPER_SUFFIXES: Final = ("password", "passwd", "token", "secret", "apikey")
_LITERALS: Final = _words("none null nil undefined true false yes no required optional empty")
_TYPES: Final = _words(
    "str string bytes int integer number bool boolean any object secretstr secretbytes optional "
    "secret text varchar char uuid dict list float"
)
# `hashed`, `self.password`, `process.env.API_KEY!` (TypeScript's non-null mark)
_CODE_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)*[!?]?")
_MENTIONS_SECRET: Final = re.compile(r"(?i)pass|pwd|secret|token|key|auth|cred")
_PLACEHOLDER: Final = re.compile(
    r"(?:[A-Za-z0-9]{1,12}+[_-])?([xX*.#?_-])\1{2,}+|<[^<>\n]{1,60}+>|(?i:your)[-_ ][\w -]{1,40}+"
)
_KEY_VALUE: Final = re.compile(r"[A-Za-z_]{2,30}+=(?!=)")
_REFERENCE: Final = re.compile(r"\$\{?[A-Za-z_({]|\{\{|\{%|%\(|<[^>]{0,60}>$|\*+$|\s*$")


def _whole_name(match: re.Match[str]) -> tuple[str, int]:
    """The name the secret word belongs to, and where it starts."""
    text, start = match.string, match.start()
    begin = start
    while begin > 0 and start - begin < 60 and text[begin - 1] in _NAME_CHARS:
        begin -= 1
    return text[begin:start] + match.group("word") + match.group("tail"), begin


@functools.lru_cache(maxsize=4096)
def _kind_of(name: str) -> str | None:
    """The kind of secret `name` holds, or None for a name that is ordinary configuration."""
    if name in ("PWD", "OLDPWD"):  # the shell's working directories
        return None
    spelt = _NAME_PARTS.findall(name)
    parts = [part.lower() for part in spelt]
    if not parts or any(part in _DESCRIPTORS for part in parts):
        return None
    if parts[-3:] == ["secret", "key", "base"]:  # Rails
        return "secret"
    upper = not any(char.islower() for char in name)
    for index in range(len(parts) - 1, -1, -1):
        part = parts[index]
        before = parts[index - 1] if index else ""
        if part == "key":
            qualifies = before not in _ORDINARY_KEY_QUALIFIERS
            secret = qualifies if upper else before in _SECRET_KEY_QUALIFIERS
        else:
            # `PGPASSWORD`, also in `sess-PGPASSWORD`: an upper-case part may end in the word.
            secret = part in _SECRET_PART or (
                spelt[index].isupper() and part.endswith(_UPPER_SUFFIXES)
            )
        if not secret:
            continue
        if not upper and index != len(parts) - 1:
            return None  # `token_count`, `passwordField`: the secret word is not what it names
        if part in _PASSWORD_WORDS or part.endswith(("password", "passwd")):
            return "password"
        if part == "secret" and before == "client":
            return "client-secret"
        if part in ("apikey", "apitoken") or (part == "key" and before == "api"):
            return "api-key"
        return "secret"
    return None


def _is_code(value: str, match: re.Match[str], upper: bool) -> bool:
    """Whether a bare (unquoted) value is code or a reference rather than a secret."""
    after = match.string[match.end() : match.end() + 2]
    if after[:1] in ("(", "[") or after.lstrip(" \t")[:1] == "=":
        return True  # a call, an index, a chained assignment
    if value.lower() in _LITERALS or not any(char.isalnum() for char in value):
        return True
    if value[0] == "$" or value.startswith("%"):
        return True
    sep = match.group("sep")
    if ":" in sep and "=" not in sep and value.lower() in _TYPES:
        return True  # `password: str`, `token: string;`
    if not _CODE_NAME.fullmatch(value):
        return False  # a digit or a symbol: key material, not a name
    if looks_random(value.partition(".")[0]):
        return False  # `ZcpmqikFyCpfiuQwjW.env`: key material, then whatever was glued to it
    if "." in value or _MENTIONS_SECRET.search(value):
        return True  # `self.password`, `password=password`, `token: newToken`
    if upper:
        return False
    # In lower-case code, `token = response`, `f(password=pw, …)` and `key: isSet ? a : b` pass a
    # variable; a YAML or INI value is alone on its line.
    rest = match.string[match.end() : match.end() + 200].partition("\n")[0].strip()
    if _KEY_VALUE.match(rest):
        return False  # `password=secret dbname=shop`: a libpq or ODBC list of settings
    more_code_follows = bool(rest) and not rest.startswith("#")
    return more_code_follows or " =" in sep or "= " in sep


def _looks_like_key(value: str) -> bool:
    """An API key or token is random material: a digit, long, or letters no word is made of;
    never words with spaces. (A password may be anything a person chose.)"""
    if " " in value:
        return False
    return len(value) >= 20 or any(char.isdigit() for char in value) or looks_random(value)


# `PASSWORD=correct horse battery staple`: in a `.env` line the value runs to the line's end,
# unless what follows is a command (`PGPASSWORD=x psql -h db`: a flag, a path, a pipe).
_LINE_START: Final = re.compile(r"(?:^|\n)[ \t]*(?:export[ \t]+)?$")
_WORDS_TO_THE_END: Final = re.compile(
    r"(?:[ \t]+[A-Za-z0-9!@%^*+.,?_~]{1,40}+){1,8}+[ \t]*(?=\r?\n|$)"
)


def _passphrase_end(match: re.Match[str], begin: int) -> int:
    """Where an unquoted password that starts an environment line ends."""
    end = match.end()
    if not _LINE_START.search(match.string, max(0, begin - 40), begin):
        return end
    words = _WORDS_TO_THE_END.match(match.string, end)
    return words.end() if words else end


def _decide(match: re.Match[str]) -> Found | None:
    group = match.lastgroup or "bare"  # the value's group: the last one in the pattern
    value = match.group(group)
    if value.startswith(MASK_START):
        return None
    name, begin = _whole_name(match)
    kind = _kind_of(name)
    if kind is None or match.string.endswith(MASK_START, 0, begin):
        return None  # not a secret's name, or the kind inside a mask: `[redacted:api-key]: …`
    if group == "bare":
        # Upper case is the name's last part's: `sess-PASSWORD` is an id glued to a variable.
        last_part = name.rpartition("-")[2]
        if _is_code(value, match, upper=not any(char.islower() for char in last_part)):
            return None
    else:
        if _REFERENCE.match(value):
            return None
        opening = match.string[begin - 1 : begin]
        if opening in ("'", '"', "`") and not match.group("sep").lstrip("\\").startswith(opening):
            return None  # `input("Password: ")`: the name is inside a string that ends here
    if _PLACEHOLDER.fullmatch(value):
        return None  # `xxxxxxxx`, `********`, `<password>`, `your-api-key`
    if kind != "password" and not _looks_like_key(value):
        return None  # `apiKey: 'ollama'`, `token = 'REDACTED_API_KEY'`: placeholders
    start, end = match.span(group)
    if kind == "password" and group == "bare" and match.group("sep") == "=":
        end = _passphrase_end(match, begin)
    return Found(start, end, kind)


RULES: Final[tuple[Rule, ...]] = (
    Rule("password", _PATTERNS, _decide),
    Rule(
        # `auth=("user", "…")`, `HTTPBasicAuth("user", "…")`
        "password",
        tuple(
            lazy(
                word + r"[ \t]*=?[ \t]*\([ \t]*([\"'])[^\"'\n]{1,100}+\1[ \t]*,"
                r"[ \t]*([\"'])(?P<secret>[^\"'\n]++)\2"
            )
            for word in (r"auth(?<![a-z]auth)", "Auth")
        ),
        secret_group,
    ),
)

KINDS: Final = ("password", "client-secret", "api-key", "secret")

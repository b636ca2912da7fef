"""Passwords given in words, in the ten languages the product speaks: "my password is X", "use
password X", "Mot de passe : X", "Passwort: X", "contraseña: X", "senha: X", "пароль: X",
"비밀번호: X", "パスワード: X", "密码：X", "API密钥=X".

Prose names passwords far more often than it gives one ("the password is required", "le mot
de passe est incorrect", "パスワードは必須です"), so the value decides:

- after a colon or `=` (`Passwort: X`, also `Пароль от сервера: X`), any value but a
  placeholder, a reference or a word that says the value is missing;
- after a verb ("is", "est", "ist", "é", "è", "es", "は", "是", "는", "—"), a quoted value, or one
  with a digit, a symbol or a capital inside it: `hunter2`, `Tr0ub4dor&3`, not `hashed`;
- right after the word ("use password X"), only after a verb of using one, with such a value.

A value is the ASCII run that follows (a password is typed on a keyboard; "必須" is not one), or
what stands in quotes. English `password: X` and `password = X` are settings: assignments.py.
"""

from __future__ import annotations

import re
from typing import Final

from history.redaction.rule import (
    MASK_START,
    Found,
    Pattern,
    Rule,
    case_variants,
    lazy,
    looks_random,
)

# (words, the verbs that give a value after them, whether `:` may follow them directly, whether
# the verb is a particle written against the word and the value: `パスワードはX`, `密码为X`)
_LANGUAGES: Final = (
    (
        case_variants("password", "passphrase", "passcode"),
        r"is|was|will be|should be|is now|changed to|set to|to|'s|è|e|era|sarà",
        False,
        False,
    ),
    (case_variants("senha"), r"é|e|era|será|seria", True, False),
    (case_variants("contraseña", "contrasena"), r"es|era|será|sería", True, False),
    (case_variants("mot de passe", "mdp"), r"est|était|sera|c'est", True, False),
    (case_variants("passwort", "kennwort"), r"ist|lautet|war|wäre", True, False),
    (("пароль", "Пароль", "ПАРОЛЬ", "токен", "Токен", "ключ API"), r"—|–|-|это", True, False),
    (("パスワード", "暗証番号", "APIキー", "トークン"), r"は|が", True, True),
    (("密码", "口令", "密钥", "令牌"), r"是|为|為", True, True),
    (("비밀번호", "패스워드", "암호", "API 키", "API키", "토큰"), r"는|은|가|이", True, True),
    # A key or token named in words: its value must look like key material (see `_KEYS`).
    (
        (
            *case_variants("API key", "API token", "access token", "auth token", "secret key"),
            "api key",
            "API Key",
            "Access Token",
            "bot token",
            *case_variants("chave da API", "chave de API", "chave API", "clave de API"),
            *case_variants("clave API", "clé API", "clé d'API", "chiave API", "clave"),
            "API-Schlüssel",
            "API-ключ",
            "API ключ",
        ),
        "",
        True,
        False,
    ),
)
_KINDS: Final = {
    **dict.fromkeys(
        ("密钥", "APIキー", "API 키", "API키", "ключ API", "API-ключ", "API ключ"), "api-key"
    ),
    **dict.fromkeys(("令牌", "トークン", "토큰", "токен", "Токен"), "secret"),
    **dict.fromkeys(
        case_variants("API key", "API token", "chave da API", "chave de API", "chave API"),
        "api-key",
    ),
    **dict.fromkeys(
        (
            "api key",
            "API Key",
            "API-Schlüssel",
            *case_variants("clave de API", "clave API", "clé API", "clé d'API", "chiave API"),
        ),
        "api-key",
    ),
    **dict.fromkeys(
        (*case_variants("access token", "auth token", "secret key"), "Access Token", "bot token"),
        "secret",
    ),
}
# Words whose value must always look like a password or a key: `clave` is also a keyword's
# word ("palabra clave: término"), and a key's name in words is common in prose.
_STRICT: Final = frozenset(
    (*(word for word, kind in _KINDS.items() if kind != "password"), *case_variants("clave"))
)
# "Password for root: X", "senha do banco: X", "Пароль от сервера: X".
_QUALIFIER: Final = (
    r"(?:for|of|to|on|from|at|in|do|da|de|del|dela|della|di|para|du|pour|des|d'|für|fuer|von"
    r"|vom|zum|zur|der|des|per|от|для|к)"
)
_VALUE: Final = (
    r"(?P<value>\"[^\"\n]{1,100}+\"|'[^'\n]{1,100}+'|`[^`\n]{1,100}+`|「[^」\n]{1,100}+」"
    r"|“[^”\n]{1,100}+”|(?P<bare>[!#-&(-+\--~]{1,100}+"
    # A bare value ends at a space, a quote, punctuation or a CJK character, not in a word.
    r"(?![^\s\"'`,;)。、，）」\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])))"
)
# What stands before "password X" when X is one: a verb of using it, a possessive, or the user
# name it goes with ("username admin password X", "login: admin, password X").
_USING: Final = re.compile(
    r"(?i)(?:(?:use|using|with|enter|type|try|login|log in|utilise[rz]?|avec|usa|usar|use a"
    r"|con|com|mit|benutze|verwende|nutze|используй|с|my|our|your|mon|mein|mi|meu|minha|мой|наш)"
    r"|(?:user(?:name)?|login|utilisateur|usuario|usuário|benutzer|пользователь)[ \t:=]+\S+"
    r"[ \t,;/]*(?:and|et|y|e|und|и)?)\s+(?:the\s+|a\s+|la\s+|le\s+|das\s+|o\s+)?$"
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MISSING: Final = _words(
    "required optional none null nil empty hidden masked redacted unknown unset missing n/a na "
    "obligatoire requis obligatorio requerido obrigatória obrigatorio erforderlich leer "
    "changeme password secret xxx xxxx"
)
_TECHNICAL: Final = _words(
    "sha1 sha256 sha512 md5 utf8 utf-8 bcrypt argon2 argon2id scrypt pbkdf2 base64 hex ascii "
    "2fa mfa otp totp oauth oauth2 ldap saml sso"
)
# A value alone after the colon, to the end of its line, may be any word (`Passwort: geheim`);
# followed by more words it is prose (`Passwort: siehe Tresor`) unless it looks like a password.
_ALONE: Final = re.compile(r"[.!]?[ \t]*(?:\r?\n|$)")
_SYMBOL_OR_DIGIT: Final = re.compile(r"[0-9!@#$%^&*+=?~_.-]|(?<=.)[A-Z]")
_WORDS_JOINED: Final = re.compile(r"[A-Za-z]++(?:-[A-Za-z]++)++")


def _patterns() -> tuple[tuple[tuple[str, ...], Pattern], ...]:
    """A pattern for the words of each two-letter start (`pa` for password, passphrase,
    passwort), with those words: each starts with its literal, which the engine skips to, where
    one pattern for all would be tried at every character a word starts with. Each word's own
    verbs and colon are checked by `_spoken`."""
    spaced = "|".join(verbs for _, verbs, _, tight in _LANGUAGES if verbs and not tight)
    particles = "|".join(verbs for _, verbs, _, tight in _LANGUAGES if tight)
    connector = (
        r"(?P<connector>"
        r"(?P<colon>[ \t]*(?::[ \t]*|：[ \t]*|=[ \t]*))"
        rf"|(?P<qualified>[ \t]+{_QUALIFIER}[ \t]+[^\n:：=]{{1,40}}+(?::[ \t]+|：[ \t]*))"
        rf"|(?P<verb>[ \t]*(?:{spaced})(?:[ \t]*:)?[ \t]+|[ \t]*(?:{particles})[ \t]*[:：]?[ \t]*)"
        r"|(?P<after>[ \t]+)"
        r")"
    )
    by_start: dict[str, list[str]] = {}
    for words, *_ in _LANGUAGES:
        for word in words:
            by_start.setdefault(word[:2], []).append(word[2:])
    return tuple(
        (
            tuple(start + rest for rest in rests),
            lazy(
                re.escape(start)
                + "(?:"
                + "|".join(map(re.escape, sorted(rests, key=len, reverse=True)))
                + ")"
                + connector
                + _VALUE
            ),
        )
        for start, rests in by_start.items()
    )


_COLON_ALONE: Final = {word: alone for words, _, alone, _ in _LANGUAGES for word in words}


def _password_like(value: str) -> bool:
    """A value with a digit, a symbol or a capital inside: not a word of prose."""
    lower = value.lower()
    if len(value) < 4 or "://" in value or value[0] in "/~$<{%[":
        return False
    if lower in _MISSING or lower.split("-")[0] in _TECHNICAL or _WORDS_JOINED.fullmatch(value):
        return False
    return bool(_SYMBOL_OR_DIGIT.search(value))


def _keyish(value: str) -> bool:
    if " " in value or len(value) < 8 or "://" in value or value[0] in "/~$<{%[":
        return False
    return any(char.isdigit() for char in value) or len(value) >= 24 or looks_random(value)


def _placeholder(value: str) -> bool:
    stripped = value.strip("*x.…_-<>{}[]()$ ").lower()
    return not stripped or value.startswith(("$", "${", "{{", "<", "%(")) or stripped in _MISSING


def _spoken(match: re.Match[str]) -> Found | None:
    start, end = match.span("value")
    bare = match.group("bare") is not None
    if bare:
        while end > start and match.string[end - 1] in ".,:;)":
            end -= 1  # the sentence's full stop, not the password's
    else:
        start, end = start + 1, end - 1  # inside the quotes
    value = match.string[start:end]
    if not value or value.startswith(MASK_START) or _placeholder(value):
        return None
    word = match.string[match.start() : match.start("connector")]
    if match.group("colon") is not None and not _COLON_ALONE[word]:
        return None  # English `password: X` is a setting's value: assignments.py decides
    if word in _STRICT:
        return Found(start, end, _KINDS.get(word, "password")) if _keyish(value) else None
    if bare:
        if match.group("colon") is not None and _ALONE.match(match.string, end):
            if value.lower() in _MISSING or "://" in value:
                return None
        elif not _password_like(value):
            return None
        elif match.group("after") is not None:
            line = match.string[max(0, match.start() - 30) : match.start()]
            if not _USING.search(line):
                return None
    return Found(start, end, _KINDS.get(word))


# Each pattern starts at two letters any text holds ("co", "pa"): its own words decide whether
# a text is tried with it at all (and whether it is compiled: a text that says `password` needs
# none of the fifty patterns of the other words, each ~5 ms to compile).
_EACH: Final = _patterns()
# Every rule's words, one tuple: the check a long text's scan makes before each rule is made once.
_ALL_WORDS: Final = tuple(word for words, _ in _EACH for word in words)
RULES: Final[tuple[Rule, ...]] = tuple(
    Rule("password", (pattern,), _spoken, requires=words, gate=_ALL_WORDS)
    for words, pattern in _EACH
)

"""The ten languages recall-history speaks, how one is chosen, and its messages.

Messages live in gettext catalogues, one domain per face of the product (`tool`, `api`, `cli`,
`page`): history/locale/<locale>/LC_MESSAGES/<domain>.mo, compiled from the .po beside it by
`make catalogues`. English is the source text itself: it has no catalogue. Placeholders are
str.format's named fields (`{count}`), filled after translation, so a translation may move them.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

LANGUAGES: tuple[str, ...] = ("en", "pt-BR", "es", "fr", "de", "it", "ja", "zh-CN", "ko", "ru")
ENGLISH = "en"
DOMAINS: tuple[str, ...] = ("tool", "api", "cli", "page")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_BY_FOLDED = {tag.lower(): tag for tag in LANGUAGES}
# A language we speak in one written form only: its other regions and scripts read that one.
_BY_PRIMARY = {tag.split("-")[0].lower(): tag for tag in LANGUAGES}


def supported(requested: str | None) -> str | None:
    """The tag of LANGUAGES that `requested` names (a BCP 47 tag or a POSIX locale such as
    `de_DE.UTF-8`, any case), or None when it names none of them."""
    if not requested:
        return None
    tag = requested.strip().split(".")[0].split("@")[0].replace("_", "-").lower()
    if tag in _BY_FOLDED:
        return _BY_FOLDED[tag]
    return _BY_PRIMARY.get(tag.split("-")[0])


def choose(requested: str | None) -> str:
    """A tag of LANGUAGES for `requested` ("de_DE.UTF-8", "pt_br", "zh"); English for an
    unknown or missing one (never raises)."""
    return supported(requested) or ENGLISH


def from_accept_language(header: str | None) -> str:
    """The supported language an HTTP Accept-Language header prefers most (by q-value, then
    order); English when it names none ("*" too means any, so English)."""
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate((header or "").split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag.strip() and quality > 0:
            ranked.append((-quality, position, tag.strip()))
    for _quality, _position, tag in sorted(ranked):
        if found := supported(tag):
            return found
    return ENGLISH


def from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """RECALL_LANGUAGE, else the locale's language (LC_ALL, then LC_MESSAGES, then LANG: the
    first one set decides, as in POSIX), else English."""
    for name in ("RECALL_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        if value := environ.get(name, "").strip():
            return choose(value)
    return ENGLISH


# Thousands separators as each language writes them (1,234 in English is 1.234 in German).
_GROUPING = {"de": ".", "es": ".", "it": ".", "pt-BR": ".", "fr": "\u202f", "ru": "\u00a0"}


def grouped(count: int, language: str = ENGLISH) -> str:
    """A whole number grouped by thousands as `language` writes it."""
    return f"{count:,}".replace(",", _GROUPING.get(choose(language), ","))


def locale_name(language: str) -> str:
    """The folder of a language's catalogues: gettext's `pt_BR` for `pt-BR`."""
    return choose(language).replace("-", "_")


@cache
def translator(domain: str, language: str) -> gettext.NullTranslations:
    """The messages of `domain` in `language` (any form `choose` takes): `.gettext(msgid)` and
    `.ngettext(singular, plural, n)`. English, and any message a catalogue lacks, is the
    msgid itself."""
    tag = choose(language)
    if tag == ENGLISH:
        return gettext.NullTranslations()
    return gettext.translation(domain, LOCALE_DIR, languages=[locale_name(tag)], fallback=True)


def N_(message: str) -> str:
    """Marks an English message for the catalogues where it is defined; translated where used."""
    return message


class Messages:
    """One domain's messages in one language, placeholders filled: `_("{n} found", n=3)` and
    `_.ngettext("{n} turn", "{n} turns", n, n=n)`. The name `_` at the call site is what the
    catalogues' extraction looks for."""

    def __init__(self, domain: str, language: str | None = ENGLISH) -> None:
        self.domain = domain
        self.language = choose(language)
        self._translations = translator(domain, self.language)

    def __call__(self, message: str, /, **fields: object) -> str:
        return self._translations.gettext(message).format(**fields)

    def ngettext(self, singular: str, plural: str, count: int, /, **fields: object) -> str:
        return self._translations.ngettext(singular, plural, count).format(**fields)

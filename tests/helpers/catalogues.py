"""The gettext catalogues as `make catalogues` writes them and the tests read them.

    python -m tests.helpers.catalogues      # extract, update and compile every domain

One domain per face of the product; `history/locale/<domain>.cfg` is its Babel mapping (which
files of history/ hold its messages, patterns relative to history/), so a face's owner adds a
domain by adding that file. For each domain: the English messages, extracted from the source
(`_("...")`, `_.ngettext(...)`, `N_("...")`), go to `history/locale/<domain>.pot`; each
language's `history/locale/<locale>/LC_MESSAGES/<domain>.po` is updated from it (a new message
comes in untranslated, a changed one fuzzy: both fail tests/unit/test_catalogues.py until a person
translates them); the `.mo` beside it is compiled from it. Placeholders are str.format's named
fields (`{count}`), the same in every translation.
"""

from __future__ import annotations

import io
import string
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from history.i18n import ENGLISH, LANGUAGES, LOCALE_DIR, locale_name
from tests.helpers.paths import ROOT

HISTORY = ROOT / "history"
TRANSLATED = tuple(language for language in LANGUAGES if language != ENGLISH)
WIDTH = 100


def domains() -> list[str]:
    return sorted(path.stem for path in LOCALE_DIR.glob("*.cfg"))


def template_path(domain: str) -> Path:
    return LOCALE_DIR / f"{domain}.pot"


def po_path(domain: str, language: str) -> Path:
    return LOCALE_DIR / locale_name(language) / "LC_MESSAGES" / f"{domain}.po"


def extracted(domain: str) -> Catalog:
    """The domain's English messages as the source has them now."""
    with (LOCALE_DIR / f"{domain}.cfg").open(encoding="utf-8") as mapping:
        method_map, options_map = parse_mapping_cfg(mapping)  # type: ignore[no-untyped-call]
    catalog = _catalog(domain, None)
    for filename, _line, message, comments, context in extract_from_dir(
        HISTORY, method_map, options_map, keywords=DEFAULT_KEYWORDS, strip_comment_tags=True
    ):
        # No line number (babel's own parser reads a location without one as None).
        where: tuple[str, Any] = (f"history/{filename}", None)
        catalog.add(message, None, [where], auto_comments=comments, context=context)
    return catalog


def _catalog(domain: str, language: str | None) -> Catalog:
    about = f"{language} messages" if language else "English messages (the template)"
    return Catalog(
        locale=language and locale_name(language),
        domain=domain,
        header_comment=f"# recall-history: {about} of the `{domain}` domain.\n"
        "# `make catalogues` keeps this file in step with the source; see README.md.",
        project="recall-history",
        version="",
        copyright_holder="recall-history",
        msgid_bugs_address="",
        last_translator="recall-history",
        language_team=f"recall-history {language or ''}",
        fuzzy=False,
    )


def read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return read_po(file, locale=language and locale_name(language), domain=path.stem)


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def placeholders(text: str) -> list[str]:
    """The named fields of a str.format text, sorted; raises ValueError on a stray brace."""
    return sorted(field for _lit, field, _spec, _conv in string.Formatter().parse(text) if field)


def messages(catalog: Catalog) -> Iterator[Message]:
    return (message for message in catalog if message.id)


def _write(path: Path, catalog: Catalog) -> None:
    out = io.BytesIO()
    write_po(out, catalog, width=WIDTH, include_lineno=False, ignore_obsolete=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != out.getvalue():
        path.write_bytes(out.getvalue())


def update(domain: str) -> None:
    """Extract the domain's messages, bring every language's .po up to date, compile each."""
    template = extracted(domain)
    if template_path(domain).exists():  # keep the old date unless a message changed
        old = read(template_path(domain))
        if [(m.id, m.locations) for m in messages(old)] == [
            (m.id, m.locations) for m in messages(template)
        ]:
            template.creation_date = old.creation_date
    _write(template_path(domain), template)
    for language in TRANSLATED:
        path = po_path(domain, language)
        if path.exists():
            catalog = read(path, language)
        else:
            catalog = _catalog(domain, language)
            catalog.revision_date = template.creation_date
        catalog.update(template)
        _write(path, catalog)
        mo = compiled(read(path, language))
        if not path.with_suffix(".mo").exists() or path.with_suffix(".mo").read_bytes() != mo:
            path.with_suffix(".mo").write_bytes(mo)
        missing = sum(1 for m in messages(catalog) if m.fuzzy or not all(_forms(m)))
        if missing:
            print(f"{path.relative_to(ROOT)}: {missing} message(s) to translate")


def _forms(message: Message) -> tuple[str, ...]:
    return forms(message.string)


def forms(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """A message's id or string as its forms: one, or one per plural form ("" for none)."""
    if text is None or isinstance(text, str):
        return (text or "",)
    return tuple(text)


if __name__ == "__main__":
    for name in domains():
        update(name)

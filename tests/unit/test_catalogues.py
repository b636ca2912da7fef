"""Every face's messages, in every language: the catalogues are whole, current and consistent.

Generic over domains (history/locale/<domain>.cfg): a domain added by its face's owner is held
to the same rules without a test of its own.
"""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Message

from history.i18n import LANGUAGES, LOCALE_DIR, Messages, locale_name, translator
from tests.helpers import catalogues, glossary

DOMAINS = catalogues.domains()
PAIRS = [(domain, language) for domain in DOMAINS for language in catalogues.TRANSLATED]
# What a message names rather than says: placeholders, identifiers (recall_turn, turn_id),
# options and commands (--session, recall sessions) and file names (history.db.corrupt-*)
# stay as they are in every language, so the glossary is not asked of them.
NAMED = re.compile(r"\{[^{}]*\}|\w*_\w*|\w+=\w+|--?\w[\w-]*|recall \w+|\w+(?:\.[\w*-]+)+")


def forms(message: Message) -> tuple[str, ...]:
    return catalogues.forms(message.string)


def english(message: Message) -> tuple[str, ...]:
    return catalogues.forms(message.id)


def test_the_domains_of_the_four_faces_are_known() -> None:
    assert {"tool", "api"} <= set(DOMAINS)
    assert LANGUAGES[0] == "en" and len(LANGUAGES) == 10


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_template_holds_every_message_of_the_source(domain: str) -> None:
    """A message added to the code without `make catalogues` would reach no language."""
    source = {message.id for message in catalogues.messages(catalogues.extracted(domain))}
    template = catalogues.read(catalogues.template_path(domain))
    assert source == {message.id for message in catalogues.messages(template)}, (
        f"run `make catalogues`: {domain}.pot differs from the source"
    )


@pytest.mark.parametrize(("domain", "language"), PAIRS)
def test_every_message_is_translated_with_the_same_placeholders(domain: str, language: str) -> None:
    template = catalogues.read(catalogues.template_path(domain))
    catalog = catalogues.read(catalogues.po_path(domain, language), language)
    assert not catalog.fuzzy, f"{language} {domain}.po: its header is marked fuzzy"
    for wanted in catalogues.messages(template):
        message = catalog.get(wanted.id)
        assert message is not None, f"{language} {domain}.po lacks {wanted.id!r}"
        assert not message.fuzzy, f"{language} {domain}.po: fuzzy {wanted.id!r}"
        assert all(text.strip() for text in forms(message)), (
            f"{language} {domain}.po: untranslated {wanted.id!r}"
        )
        fields = catalogues.placeholders(english(wanted)[-1])
        for text in forms(message):
            assert catalogues.placeholders(text) == fields, (
                f"{language} {domain}.po: {text!r} has other placeholders than {wanted.id!r}"
            )
            text.format(**dict.fromkeys(fields, "x"))  # no stray brace either


@pytest.mark.parametrize(("domain", "language"), PAIRS)
def test_the_compiled_catalogue_is_the_one_its_po_compiles_to(domain: str, language: str) -> None:
    path = catalogues.po_path(domain, language)
    assert path.with_suffix(".mo").read_bytes() == catalogues.compiled(
        catalogues.read(path, language)
    ), f"run `make catalogues`: {path.with_suffix('.mo').name} of {language} is stale"


@pytest.mark.parametrize(("domain", "language"), PAIRS)
def test_translations_keep_to_the_glossary(domain: str, language: str) -> None:
    """A message that speaks of a concept (a turn, a conversation, forgetting...) uses the
    language's chosen word for it, and no rejected word appears anywhere."""
    terms = glossary.load()
    catalog = catalogues.read(catalogues.po_path(domain, language), language)
    for message in catalogues.messages(catalog):
        source = english(message)[-1]
        for text in forms(message):
            said = NAMED.sub(" ", text)
            assert not terms.avoided(language, said), (language, text)
            for concept in terms.concepts_in(NAMED.sub(" ", source)):
                assert terms.uses(concept, language, said), (
                    f"{language} {domain}.po: {text!r} does not say "
                    f"{terms.terms[concept][language].chosen!r} for {concept}"
                )


@pytest.mark.parametrize("language", catalogues.TRANSLATED)
def test_the_glossary_sentences_are_the_catalogues(language: str) -> None:
    """docs/glossary.toml quotes the taint label; the tool says it in the same words."""
    label = glossary.load().messages["taint_label"]
    assert Messages("tool", language)(label["en"]) == label[language]


def test_every_language_has_its_catalogue_folder_and_english_none() -> None:
    folders = {path.name for path in LOCALE_DIR.iterdir() if path.is_dir()}
    assert folders == {locale_name(language) for language in catalogues.TRANSLATED}
    assert translator("tool", "en").gettext("anything") == "anything"

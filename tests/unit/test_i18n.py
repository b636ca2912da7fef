"""How a language is chosen: a tag, a POSIX locale, an Accept-Language header, the environment;
whatever is asked for, one of the ten languages comes back and nothing raises."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history.i18n import (
    LANGUAGES,
    Messages,
    choose,
    from_accept_language,
    from_environment,
    translator,
)


@pytest.mark.parametrize(
    ("asked", "language"),
    [
        ("de", "de"),
        ("de_DE.UTF-8", "de"),
        ("de-AT", "de"),
        ("pt_br", "pt-BR"),
        ("pt-PT", "pt-BR"),
        ("PT-br", "pt-BR"),
        ("zh", "zh-CN"),
        ("zh_CN.GB18030", "zh-CN"),
        ("ja_JP.eucJP", "ja"),
        ("ko-KR", "ko"),
        ("ru_RU.KOI8-R", "ru"),
        ("fr_CA@euro", "fr"),
        ("es-419", "es"),
        ("it", "it"),
        ("en_GB", "en"),
        ("C", "en"),
        ("C.UTF-8", "en"),
        ("POSIX", "en"),
        ("tlh", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_choose_names_one_of_the_ten(asked: str | None, language: str) -> None:
    assert choose(asked) == language


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "fr"),
        ("nl-NL, ja;q=0.5", "ja"),  # Dutch is not spoken here: the next one asked for
        ("en;q=0.3, ko;q=0.9", "ko"),  # by quality, not by order
        ("ru;q=0, es", "es"),  # q=0 means "not this one"
        ("it;q=0.5, pt-BR;q=0.5", "it"),  # a tie keeps the header's order
        ("zh-Hans-CN", "zh-CN"),
        ("*", "en"),
        ("nl, sv", "en"),
        ("de;q=abc", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_accept_language_picks_the_best_supported(header: str | None, language: str) -> None:
    assert from_accept_language(header) == language


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"RECALL_LANGUAGE": "ja", "LC_ALL": "de_DE.UTF-8"}, "ja"),
        ({"LC_ALL": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR", "LANG": "es_ES"}, "de"),
        ({"LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"}, "fr"),
        ({"LANG": "pt_BR.UTF-8"}, "pt-BR"),
        ({"RECALL_LANGUAGE": "", "LC_ALL": "", "LANG": "ko_KR.UTF-8"}, "ko"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"RECALL_LANGUAGE": "xx"}, "en"),
        ({}, "en"),
    ],
)
def test_the_environment_chooses_recall_language_then_the_locale(
    environ: dict[str, str], language: str
) -> None:
    assert from_environment(environ) == language


@given(st.text(max_size=40))
def test_anything_asked_for_is_one_of_the_ten(asked: str) -> None:
    assert choose(asked) in LANGUAGES
    assert from_accept_language(asked) in LANGUAGES
    assert from_environment({"RECALL_LANGUAGE": asked}) in LANGUAGES


def test_a_translator_speaks_its_language_and_english_is_the_source() -> None:
    label = "[this turn quoted earlier recall_history results]"
    assert "zitiert" in translator("tool", "de").gettext(label)
    assert translator("tool", "de_DE.UTF-8") is translator("tool", "de_DE.UTF-8")
    assert translator("tool", "en").gettext(label) == label
    assert translator("tool", "tlh").gettext(label) == label
    assert translator("no-such-domain", "fr").gettext(label) == label
    assert translator("tool", "en").ngettext("{n} turn", "{n} turns", 2) == "{n} turns"
    assert Messages("tool", "xx").language == "en"

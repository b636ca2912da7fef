"""The usage guide in ten languages: each says what the English one says, with the same sections
and the same commands, in the words the glossary chose for its language; the README links all."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from history.tools.text import TAINT_LINE
from tests.helpers.glossary import finds, load, prose
from tests.helpers.paths import ROOT

GLOSSARY = load()
LANGUAGES = list(GLOSSARY.languages)
TRANSLATIONS = [code for code in LANGUAGES if code != "en"]
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
COMMENT = re.compile(r"\s+#\s.*$")
GUIDE_LINK = re.compile(r"\]\((?:docs/)?(usage(?:\.[A-Za-z-]+)?\.md)\)")


@dataclass
class Section:
    """What a translation must keep from a section of the English guide."""

    level: int
    code_spans: set[str] = field(default_factory=set)
    commands: list[str] = field(default_factory=list)  # code block lines, comments dropped
    list_items: int = 0
    paragraphs: int = 0  # blocks of prose that are not list items


def sections(markdown: str) -> list[Section]:
    found = [Section(level=0)]  # what comes before the first heading
    in_block, previous = False, ""
    for line in markdown.splitlines():
        starts_paragraph = bool(line.strip()) and not previous.strip() and not in_block
        previous = line
        if line.startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            if command := COMMENT.sub("", line).strip():
                found[-1].commands.append(command)
            continue
        if heading := HEADING.match(line):
            found.append(Section(level=len(heading.group(1))))
        found[-1].code_spans.update(CODE_SPAN.findall(line))
        if heading:
            continue
        item = bool(LIST_ITEM.match(line))
        found[-1].list_items += item
        found[-1].paragraphs += starts_paragraph and not item
    return found


def guide(code: str) -> str:
    return GLOSSARY.languages[code].guide.read_text(encoding="utf-8")


def describe(found: list[Section]) -> list[tuple[int, int, int]]:
    """Each section's heading level, list items and paragraphs, in order."""
    return [(section.level, section.list_items, section.paragraphs) for section in found]


def test_the_glossary_gives_every_concept_and_message_in_all_ten_languages() -> None:
    assert LANGUAGES == ["en", "pt-BR", "es", "fr", "de", "it", "ja", "zh-CN", "ko", "ru"]
    for concept, by_language in GLOSSARY.terms.items():
        missing = [code for code, term in by_language.items() if not term.chosen.strip()]
        assert not missing, f"{concept}: no term for {missing}"
        unexplained = [code for code, term in by_language.items() if term.avoid and not term.why]
        assert not unexplained, f"{concept}: rejected words without a reason in {unexplained}"
    for name, texts in GLOSSARY.messages.items():
        assert all(text.strip() for text in texts.values()), name


def test_no_chosen_term_is_also_a_rejected_word_in_its_language() -> None:
    for code in LANGUAGES:
        chosen = " | ".join(GLOSSARY.terms[c][code].chosen for c in GLOSSARY.terms)
        assert GLOSSARY.avoided(code, chosen) == [], code


def test_the_glossary_taint_label_is_the_one_the_tools_show() -> None:
    assert GLOSSARY.messages["taint_label"]["en"] == TAINT_LINE


@pytest.mark.parametrize("code", TRANSLATIONS)
def test_each_translated_message_uses_its_languages_terms(code: str) -> None:
    """The check the gettext catalogues get too: a concept in the English, its term here."""
    for name, by_language in GLOSSARY.messages.items():
        translated = by_language[code]
        for concept in GLOSSARY.concepts_in(by_language["en"]):
            assert GLOSSARY.uses(concept, code, translated), (name, concept, translated)
        assert GLOSSARY.avoided(code, translated) == [], (name, translated)


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_guide_uses_the_glossary_terms(code: str) -> None:
    text = prose(guide(code))
    missing = [c for c in GLOSSARY.terms if not GLOSSARY.uses(c, code, text)]
    assert missing == [], f"{code}: the guide never uses the glossary's term for {missing}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_guide_uses_a_rejected_word(code: str) -> None:
    assert GLOSSARY.avoided(code, prose(guide(code))) == []


@pytest.mark.parametrize("code", TRANSLATIONS)
def test_each_guide_has_the_sections_lists_and_paragraphs_of_the_english_one(code: str) -> None:
    assert describe(sections(guide(code))) == describe(sections(guide("en")))


@pytest.mark.parametrize("code", TRANSLATIONS)
def test_each_guide_shows_the_same_commands_and_code_in_each_section(code: str) -> None:
    english, translated = sections(guide("en")), sections(guide(code))
    assert len(translated) == len(english)
    for number, (theirs, ours) in enumerate(zip(translated, english, strict=True)):
        assert theirs.commands == ours.commands, f"section {number}"
        assert theirs.code_spans == ours.code_spans, f"section {number}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_guide_quotes_the_taint_label_in_english_and_in_its_language(code: str) -> None:
    text = guide(code)
    assert f"`{TAINT_LINE}`" in text
    if code != "en":  # quoted in prose, where a line may wrap anywhere a space is
        assert GLOSSARY.messages["taint_label"][code] in " ".join(prose(text).split())


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_guide_links_the_nine_others(code: str) -> None:
    linked = set(GUIDE_LINK.findall(guide(code)))
    others = {GLOSSARY.languages[c].guide.name for c in LANGUAGES if c != code}
    assert linked == others
    assert f"**{GLOSSARY.languages[code].name}**" in guide(code)


def test_the_readme_links_all_ten_guides() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {Path(target) for target in re.findall(r"\]\((docs/usage[^)\s]*\.md)\)", readme)}
    expected = {GLOSSARY.languages[c].guide.relative_to(ROOT) for c in LANGUAGES}
    assert linked == expected
    assert all((ROOT / path).is_file() for path in expected)


def test_matching_follows_each_languages_rule() -> None:
    """Word-start finds inflections but not a word inside another; substring finds compounds."""
    assert finds("two turns", "turn", "word-start")
    assert not finds("a return value", "turn", "word-start")
    assert finds("Unterhaltungsverlauf", "Unterhaltung", "substring")
    assert finds("повреждённой копии", "поврежденной копии", "word-start")
    assert "recall_history" not in prose("the `recall_history` tool")

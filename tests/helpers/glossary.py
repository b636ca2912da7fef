"""The glossary (docs/glossary.toml) as tests read it: which word each language uses for each
concept, which alternatives it rejected, and the sentences the code shows, translated.

Usage guides and gettext catalogues are held to the same file: `Glossary.uses` says whether a
text uses a language's term for a concept, `Glossary.avoided` which rejected words it contains,
and `Glossary.concepts_in` which concepts an English text speaks of (so a catalogue check can ask
that each translation of that text use the language's terms). Markdown goes through `prose`
first: code stays English and is not held to any language's words.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.helpers.paths import ROOT

GLOSSARY = ROOT / "docs" / "glossary.toml"
MATCH_RULES = ("word-start", "substring")

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]+`")
LINK_TARGET = re.compile(r"\]\([^)\s]+\)")


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    guide: Path
    match: str


@dataclass(frozen=True)
class Term:
    concept: str
    language: str
    chosen: str
    forms: tuple[str, ...]
    avoid: tuple[str, ...]
    why: str | None


def normalise(text: str) -> str:
    """What matching compares: NFC, case folded, ё read as е, a typographic apostrophe as '."""
    folded = unicodedata.normalize("NFC", text).casefold()
    return folded.replace("ё", "е").replace("\u2019", "'")


def prose(markdown: str) -> str:
    """The text a reader reads as language: code blocks, code spans and link targets removed."""
    without_blocks = FENCE.sub("\n", markdown)
    return LINK_TARGET.sub("]", CODE_SPAN.sub(" ", without_blocks))


def finds(text: str, word: str, match: str) -> bool:
    """Whether `word` occurs in `text` under the language's match rule (see glossary.toml)."""
    needle = re.escape(normalise(word))
    pattern = needle if match == "substring" else rf"(?<!\w){needle}"
    return re.search(pattern, normalise(text)) is not None


@dataclass(frozen=True)
class Glossary:
    languages: dict[str, Language]
    terms: dict[str, dict[str, Term]]  # concept -> language code -> term
    messages: dict[str, dict[str, str]]  # message name -> language code -> text

    def uses(self, concept: str, language: str, text: str) -> bool:
        term = self.terms[concept][language]
        rule = self.languages[language].match
        return any(finds(text, word, rule) for word in (term.chosen, *term.forms))

    def avoided(self, language: str, text: str) -> list[tuple[str, str]]:
        """(concept, rejected word) for each rejected word of `language` found in `text`."""
        rule = self.languages[language].match
        return [
            (concept, word)
            for concept, by_language in self.terms.items()
            for word in by_language[language].avoid
            if finds(text, word, rule)
        ]

    def concepts_in(self, english: str) -> list[str]:
        """The concepts an English text speaks of, by the English terms and their forms."""
        return [concept for concept in self.terms if self.uses(concept, "en", english)]


def _term(concept: str, entry: dict[str, object], language: str) -> Term:
    def words(table: str) -> tuple[str, ...]:
        section = entry.get(table, {})
        assert isinstance(section, dict)
        return tuple(section.get(language, ()))

    why = entry.get("why", {})
    assert isinstance(why, dict)
    return Term(
        concept,
        language,
        str(entry.get(language, "")),
        words("forms"),
        words("avoid"),
        why.get(language),
    )


@cache
def load(path: Path = GLOSSARY) -> Glossary:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    languages = {
        code: Language(code, spec["name"], ROOT / spec["guide"], spec["match"])
        for code, spec in data["languages"].items()
    }
    terms = {
        concept: {code: _term(concept, entry, code) for code in languages}
        for concept, entry in data["terms"].items()
    }
    messages = {
        name: {code: entry.get(code, "") for code in languages}
        for name, entry in data["messages"].items()
    }
    return Glossary(languages, terms, messages)

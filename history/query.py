"""Query text: the tokenizer shared by index and query, FTS5 quoting, and excerpts.

The tokenizer mirrors FTS5's `unicode61 remove_diacritics 2`: runs of letters and digits,
lowercased, diacritics folded; everything else (including `_`) separates words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from history.function_words import FUNCTION_WORDS

MAX_QUERY_WORDS = 32
_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Lowercase and strip diacritics (`Função` -> `funcao`)."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """Every word of `text`, folded, in order."""
    return _WORD.findall(fold(text))


def terms(query: str) -> list[str]:
    """The distinct searchable words of a query: function words dropped, first-seen order.

    An empty list means the query had nothing to search for. Long queries keep their first
    `MAX_QUERY_WORDS` words so a pasted page cannot turn into an unbounded expression.
    """
    seen: dict[str, None] = {}
    for word in words(query.replace("\x00", " ")):
        if word not in FUNCTION_WORDS:
            seen.setdefault(word, None)
            if len(seen) == MAX_QUERY_WORDS:
                break
    return list(seen)


def fts_match(query_terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression that ORs the terms, each a quoted string: never a syntax error."""
    return " OR ".join(quote(term) for term in query_terms)


def quote(term: str) -> str:
    """A string FTS5 reads as one phrase, whatever the term holds."""
    return '"' + term.replace('"', '""') + '"'


def _word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    # Folding can change lengths, so match word by word on the original text.
    for match in _WORD.finditer(text):
        yield match.start(), match.end(), fold(match.group())


def first_match(text: str, query_terms: Sequence[str]) -> tuple[int, int] | None:
    """The span in `text` of the first word that is one of `query_terms`."""
    wanted = set(query_terms)
    for start, end, word in _word_spans(text):
        if word in wanted:
            return start, end
    return None


def contains_any(text: str, query_terms: Sequence[str]) -> bool:
    return not set(words(text)).isdisjoint(query_terms)


def excerpt(text: str, query_terms: Sequence[str], width: int = 240) -> str:
    """About `width` characters of `text` centred on the first matching word, `…` where cut.

    Whitespace runs collapse to one space. Without a match the excerpt is the start of the text.
    """
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    span = first_match(flat, query_terms)
    centre = (span[0] + span[1]) // 2 if span else 0
    start = max(0, min(centre - width // 2, len(flat) - width))
    end = min(len(flat), start + width)
    # Do not cut a word in half at either edge.
    if start > 0:
        space = flat.find(" ", start, start + 20)
        start = space + 1 if space != -1 else start
    if end < len(flat):
        space = flat.rfind(" ", end - 20, end)
        end = space if space > start else end
    return ("…" if start > 0 else "") + flat[start:end] + ("…" if end < len(flat) else "")

"""Query text: the tokenizer shared by index and query, FTS5 quoting, and excerpts.

The tokenizer mirrors FTS5's `porter unicode61 remove_diacritics 2` over the text `index_text`
gives it: runs of letters and digits, lowercased, diacritics folded; everything else (including
`_`) separates words, and a word's index form is its Porter stem. Chinese, Japanese and Korean
are written without spaces between words, so each run of their characters is indexed as its
overlapping character pairs (`日本語` is `日本` `本語`; a lone character stays itself), which a
query of those scripts is split into as well: a word of two characters or more is found wherever
it stands, and mixed text (`login_userの修正`) splits at the change of script.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

import Stemmer

from history.folding import fold_marks
from history.function_words import FUNCTION_WORDS, only_function_words

MAX_QUERY_WORDS = 32
# Han (with its extensions and compatibility forms), the iteration marks, kana and Hangul: the
# scripts written without spaces between words.
_CJK = (
    "\u1100-\u11ff\u3005-\u3007\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003ffff"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W_{_CJK}]+")
_WORD = re.compile(f"[^\\W_{_CJK}]+")
# FTS5's porter tokenizer leaves words shorter or longer than these as they are.
_STEMMED_LENGTHS = range(3, 65)
_stemmer = Stemmer.Stemmer("porter")


def fold(text: str) -> str:
    """Lowercase and strip the diacritics of Latin letters (`Função` -> `funcao`), as FTS5 does;
    other scripts' letters, CJK among them, stay as they are (history.folding)."""
    return text.lower() if text.isascii() else fold_marks(text)


def cjk_pairs(run: str) -> list[str]:
    """The overlapping character pairs of a run of CJK characters (a lone one stays itself)."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(text: str) -> str:
    """What FTS5 indexes for `text`: the text itself, its CJK runs written as their pairs."""
    if text.isascii() or not _CJK_RUN.search(text):
        return text
    return _CJK_RUN.sub(lambda run: " " + " ".join(cjk_pairs(run.group())) + " ", text)


def words(text: str) -> list[str]:
    """Every word of `text` as the index holds it before stemming: folded, CJK runs as pairs."""
    if text.isascii() or not _CJK_RUN.search(text):
        return _WORD.findall(fold(text))
    found: list[str] = []
    for token in _TOKEN.findall(text):
        found.extend(cjk_pairs(token) if _CJK_RUN.match(token) else _WORD.findall(fold(token)))
    return found


def holds_word(folded: str, word: str) -> bool:
    """True when the folded text holds `word` as one of its words (a CJK pair: anywhere in a run),
    as `words` would find it, without splitting the whole text."""
    if _CJK_RUN.fullmatch(word):
        return word in folded
    start = folded.find(word)
    while start != -1:
        end = start + len(word)
        if not (_in_word(folded, start - 1) or _in_word(folded, end)):
            return True
        start = folded.find(word, start + 1)
    return False


def _in_word(text: str, at: int) -> bool:
    """Whether the character at `at` would continue a (non-CJK) word there."""
    return 0 <= at < len(text) and text[at].isalnum() and not _CJK_RUN.match(text[at])


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The index form of a word: its Porter stem, as FTS5's porter tokenizer makes it."""
    if len(word) not in _STEMMED_LENGTHS or not word.isascii():
        return word
    stemmed: str = _stemmer.stemWord(word)
    return stemmed


def terms(query: str) -> list[str]:
    """The distinct searchable words of a query: function words dropped, first-seen order.
    Two forms of one word both count ("plugin plugins"): the development sets rank better so.
    A run of Chinese, Japanese or Korean made only of function words is dropped whole.

    An empty list means the query had nothing to search for. Long queries keep their first
    `MAX_QUERY_WORDS` words so a pasted page cannot turn into an unbounded expression
    (`dropped_words` counts the others).
    """
    return _distinct_words(query, MAX_QUERY_WORDS)


def dropped_words(query: str) -> int:
    """How many distinct searchable words of `query` `terms` leaves out, past its first
    `MAX_QUERY_WORDS`."""
    return max(0, len(_distinct_words(query, None)) - MAX_QUERY_WORDS)


def _distinct_words(query: str, most: int | None) -> list[str]:
    text = query.replace("\x00", " ")
    if not text.isascii() and _CJK_RUN.search(text):
        text = _CJK_RUN.sub(
            lambda run: " " if only_function_words(run.group()) else run.group(), text
        )
    seen: dict[str, None] = {}
    for word in words(text):
        if word not in FUNCTION_WORDS:
            seen.setdefault(word, None)
            if len(seen) == most:
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
    for match in _TOKEN.finditer(text):
        token, start = match.group(), match.start()
        if _CJK_RUN.match(token):
            for i, pair in enumerate(cjk_pairs(token)):
                yield start + i, start + i + len(pair), pair
        else:
            yield start, match.end(), fold(token)


def first_match(text: str, query_terms: Sequence[str]) -> tuple[int, int] | None:
    """The span in `text` of the first word with the index form of one of `query_terms`."""
    wanted = {stem(term) for term in query_terms}
    for start, end, word in _word_spans(text):
        if stem(word) in wanted:
            return start, end
    return None


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

"""A turn's old and masked text cut into the full-text index's words, by FTS5 itself: the old
words the masking takes out (the secret's) apart from those it keeps (in_place.py).

An in-memory FTS5 table of the index's tokenizer cuts the old text, the masked text, and the old
text's raw words (its runs of the characters unicode61 keeps in words) written one after
another; the raw words must give the same words in the same order, so that each raw word stands
for one word of the index and the words can be given back to FTS5 apart. A text that FTS5 cuts
otherwise is not split. Which characters unicode61 keeps is asked of FTS5 itself, each
character once a process: its tables differ from Python's (most emoji and private-use
characters are kept in words, and a combining accent, which the folding drops).
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from history.query import index_text
from history.store.sqlite import fts
from history.store.sqlite.connection import sqlite_driver

_NAMES = fts.TEXT_COLUMNS
_ASCII_WORD = re.compile("[A-Za-z0-9]+")  # `_` and all other ASCII part words
_WORDS = (
    f"CREATE VIRTUAL TABLE words USING fts5({', '.join(_NAMES)}, "
    f"tokenize='{fts.DEFAULT_TOKENIZE}')",
    "CREATE VIRTUAL TABLE words_at USING fts5vocab(words, instance)",
    "CREATE VIRTUAL TABLE words_of USING fts5vocab(words, row)",
)
_ADD_WORDS = f"INSERT INTO words (rowid, {', '.join(_NAMES)}) VALUES (?, ?, ?, ?, ?)"
_WORDS_AT = "SELECT term, doc, col FROM words_at ORDER BY doc, col, offset"


@dataclass(frozen=True)
class Split:
    """A masked turn's text columns as the index is given them: the old words the masking takes
    out (`secret`), the old words it keeps (`kept`), and the masked text (`masked`); and the
    index's words it takes out (`words`)."""

    secret: tuple[str, ...]
    kept: tuple[str, ...]
    masked: tuple[str, ...]
    words: tuple[str, ...]


class Splitter:
    """Cuts texts into the index's words with an in-memory FTS5 table (one a re-scan)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._in_words: dict[str, bool] = {}  # unicode61's answer for each character asked

    def split(self, old: Sequence[str], new: Sequence[str]) -> Split | None:
        """`old` and `new`: the turn's text columns (`fts.TEXT_COLUMNS`) before and after the
        masking. None when the old text's raw words are not the index's words one for one."""
        old_text = [index_text(value) for value in old]
        new_text = [index_text(value) for value in new]
        with self._lock:
            conn = self._connection()
            raw = [self._raw_words(conn, value) for value in old_text]
            rows = [(1, *old_text), (2, *new_text), (3, *map(" ".join, raw))]
            conn.executemany(_ADD_WORDS, rows)
            found = conn.execute(_WORDS_AT).fetchall()
            conn.execute("DELETE FROM words")
        words: dict[tuple[int, str], list[str]] = defaultdict(list)
        for term, doc, column in found:
            words[(doc, column)].append(term)
        old_words = [words[(1, name)] for name in _NAMES]
        if old_words != [words[(3, name)] for name in _NAMES] or any(
            len(cut) != len(terms) for cut, terms in zip(raw, old_words, strict=True)
        ):
            return None
        secret = {term for terms in old_words for term in terms}
        secret -= {term for name in _NAMES for term in words[(2, name)]}
        taken: list[str] = []
        kept: list[str] = []
        for cut, terms in zip(raw, old_words, strict=True):
            pairs = list(zip(cut, terms, strict=True))
            taken.append(" ".join(word for word, term in pairs if term in secret))
            kept.append(" ".join(word for word, term in pairs if term not in secret))
        return Split(tuple(taken), tuple(kept), tuple(new_text), tuple(sorted(secret)))

    def words(self, rows: Sequence[Sequence[str]]) -> set[str]:
        """The index's words of some turns' text columns (`fts.TEXT_COLUMNS`, each row)."""
        texts = [(n, *(index_text(value or "") for value in row)) for n, row in enumerate(rows)]
        with self._lock:
            conn = self._connection()
            conn.executemany(_ADD_WORDS, texts)
            found = {term for (term,) in conn.execute("SELECT term FROM words_of")}
            conn.execute("DELETE FROM words")
        return found

    def _raw_words(self, conn: sqlite3.Connection, text: str) -> list[str]:
        """The runs of characters unicode61 keeps in words."""
        if text.isascii():
            return _ASCII_WORD.findall(text)
        others = {char for char in text if not char.isascii()}
        unknown = sorted(others - self._in_words.keys())
        if unknown:  # one row each, between two letters: one word if it is kept in words
            rows = [(n, f"q{char}q", "", "", "") for n, char in enumerate(unknown)]
            conn.executemany(_ADD_WORDS, rows)
            words = Counter(doc for (doc,) in conn.execute("SELECT doc FROM words_at"))
            conn.execute("DELETE FROM words")
            self._in_words.update((char, words[n] == 1) for n, char in enumerate(unknown))
        kept = "".join(re.escape(char) for char in others if self._in_words[char])
        return re.findall(f"[A-Za-z0-9{kept}]+", text)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite_driver().connect(":memory:", check_same_thread=False)
            for statement in _WORDS:
                conn.execute(statement)
            self._conn = conn
        return self._conn

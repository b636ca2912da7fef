"""Folding text as FTS5's `unicode61 remove_diacritics 2` does: lowercase, and the marks of Latin
letters dropped (`Função` is `funcao`, `ạ` is `a`), while the letters of other scripts keep theirs
(Russian `й` and `ё` are letters of their own to FTS5, not `и` and `е` with a mark)."""

from __future__ import annotations

import unicodedata

# Letters below this are Latin (Basic Latin to Latin Extended-B): their marks are dropped.
_LATIN_END = "\u0250"
# The combining marks FTS5 drops wherever they stand (its diacritic table); any other mark
# separates words there, as it does here.
_LONE_DIACRITICS = frozenset(
    chr(cp)
    for first, last in (
        (0x300, 0x304), (0x306, 0x30C), (0x30F, 0x30F), (0x311, 0x311),
        (0x31B, 0x31B), (0x323, 0x328), (0x32D, 0x32E), (0x330, 0x331),
    )
    for cp in range(first, last + 1)
)  # fmt: skip


def fold_marks(text: str) -> str:
    """`text` lowercased; a Latin letter loses its marks, a letter of another script keeps them,
    a lone diacritic goes (FTS5 drops it whatever it follows), and compatibility forms such as
    `²` stay, as FTS5 keeps them."""
    return text.lower().translate(_FOLDED)


def _fold_character(ch: str) -> str:
    if unicodedata.combining(ch):
        return "" if ch in _LONE_DIACRITICS else ch
    parts = unicodedata.normalize("NFD", ch)
    if parts[0] < _LATIN_END:
        return "".join(part for part in parts if not unicodedata.combining(part))
    return ch


class _FoldedCharacters(dict[int, str]):
    """Each character's folded form, worked out the first time `str.translate` meets it: the
    text is then folded at C speed (this runs on every candidate's text in a search)."""

    def __missing__(self, code: int) -> str:
        folded = self[code] = _fold_character(chr(code))
        return folded


_FOLDED = _FoldedCharacters()


def strip_marks(text: str) -> str:
    """`text` lowercased with every combining mark dropped, whatever the script (what
    PostgreSQL's `recall_words` stores)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))

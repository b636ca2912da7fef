"""Folding text as FTS5's `unicode61 remove_diacritics 2` does: lowercase, and the marks of Latin
letters dropped (`Função` is `funcao`, `ạ` is `a`), while the letters of other scripts keep theirs
(Russian `й` and `ё` are letters of their own to FTS5, not `и` and `е` with a mark)."""

from __future__ import annotations

import unicodedata

# Letters below this are Latin (Basic Latin to Latin Extended-B); a mark after one is dropped.
_LATIN_END = "\u0250"


def fold_marks(text: str) -> str:
    """`text` lowercased, compatibility forms decomposed, the marks of Latin letters dropped."""
    kept: list[str] = []
    latin = False
    for ch in unicodedata.normalize("NFKD", text.lower()):
        if not unicodedata.combining(ch):
            latin = ch < _LATIN_END
        elif latin:
            continue
        kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


def strip_marks(text: str) -> str:
    """`text` lowercased with every combining mark dropped, whatever the script (what
    PostgreSQL's `recall_words` stores)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))

"""FTS5's segment index (`turns_fts_idx`) keys each leaf page of a segment by a prefix of the
page's first word, as long as it takes to sort after the last word of the page before. When
secure-delete takes the first word of a page out and other words stay on it, FTS5 leaves the
key as it was: a prefix of the word taken out (at 1M, 15 of a secret's 17 characters) stays in
the file. `rekey` gives such a key the shortest prefix of the page's new first word that sorts
after it, which keeps every lookup as it was: a word is looked for on the page of the largest
key not above it, and the new key lies between the old one and the page's first word.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from history.store.sqlite import fts, fts_levels

_FTS = fts.FTS_TABLE
_KEY_AT_MOST = (
    f"SELECT term, pgno FROM {_FTS}_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1"
)
_PAGE = f"SELECT block FROM {_FTS}_data WHERE id = ?"
_REKEY = f"UPDATE {_FTS}_idx SET term = ? WHERE segid = ? AND term = ?"
_MAIN_INDEX = b"0"  # FTS5 writes the main index's words after this byte (prefix indexes: 1, 2..)
_PAGE_BITS = 37  # a leaf's rowid in `_data`: the segment's id above 37 bits, the page below


def rekey(conn: Connection, words: Iterable[str]) -> int:
    """Give a new key to each page whose key is a prefix of one of `words` (the index's words
    secure-delete took out, in the caller's transaction after FTS5 wrote them out) but not of
    the page's first word now; how many keys changed."""
    segments = [span[0] for level in fts_levels.levels(conn) for span in level.spans]
    changed = 0
    for word in set(words):
        wanted = _MAIN_INDEX + word.encode()
        for segment in segments:
            found = conn.exec_driver_sql(_KEY_AT_MOST, (segment, wanted)).first()
            if found is None or not found[0] or not wanted.startswith(bytes(found[0])):
                continue
            key = bytes(found[0])
            first = _first_word(conn, segment, int(found[1]) >> 1)
            if first is None or first.startswith(key):
                continue
            pairs = enumerate(zip(key, first, strict=False))
            shared = next((n for n, (a, b) in pairs if a != b), None)
            if shared is None:  # a page's first word never sorts before its key
                continue
            conn.exec_driver_sql(_REKEY, (first[: shared + 1], segment, key))
            changed += 1
    return changed


def _first_word(conn: Connection, segment: int, page: int) -> bytes | None:
    """The first word of a leaf page, as FTS5 writes it (a page's first word whole: its length,
    then its bytes, where the page's footer says the first word starts); None without one."""
    block = conn.exec_driver_sql(_PAGE, ((segment << _PAGE_BITS) + page,)).scalar()
    if block is None or len(block) < 4:
        return None
    footer = int.from_bytes(block[2:4], "big")
    if len(block) <= footer:
        return None
    offsets = fts.varints(block[footer:], 1)
    if not offsets:
        return None
    start = offsets[0]
    length = fts.varints(block[start : start + 9], 1)[0]
    begins = start + len(fts.varint(length))
    return bytes(block[begins : begins + length])

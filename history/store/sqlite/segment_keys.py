"""FTS5's segment index (`turns_fts_idx`) keys each leaf page of a segment by a prefix of the
page's first word, as long as it takes to sort after the last word of the page before. When
secure-delete takes the first word of a page out and other words stay on it, FTS5 leaves the
key as it was: a prefix of the word taken out (at 1M, 15 of a secret's 17 characters) stays in
the file. `rekey` gives such a key the shortest prefix of the page's new first word that sorts
after it, which keeps every lookup as it was: a word is looked for on the page of the largest
key not above it, and the new key lies between the old one and the page's first word. Both
secure-deletes call it: a re-scan's of a secret's words (in_place.py), and a small forget's or
expiry's of its turns' words (forgetting/forget.py, which reads them before the delete).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection

from history.store.rows import chunks
from history.store.sqlite import fts, fts_levels, index_words

_FTS = fts.FTS_TABLE
# For each word and segment, the page key a lookup of the word finds (the largest not above
# it), kept where it is a prefix of the word: every lookup inside SQLite, one statement.
_KEYS_OF_WORDS = f"""WITH wanted(word) AS (VALUES {{words}}),
segment(segid) AS (VALUES {{segments}}),
found AS MATERIALIZED (SELECT segid, word, (SELECT term FROM {_FTS}_idx AS i
  WHERE i.segid = segment.segid AND i.term <= wanted.word ORDER BY i.term DESC LIMIT 1) AS term
  FROM wanted, segment)
SELECT DISTINCT found.segid, found.term, i.pgno FROM found
JOIN {_FTS}_idx AS i ON i.segid = found.segid AND i.term = found.term
WHERE length(found.term) > 1 AND substr(found.word, 1, length(found.term)) = found.term"""
_WORDS_A_STATEMENT = 500
_TEXTS = f"SELECT {', '.join(fts.TEXT_COLUMNS)} FROM turns WHERE id IN "
_KEYS = f"SELECT segid, term, pgno FROM {_FTS}_idx"
_PAGE = f"SELECT block FROM {_FTS}_data WHERE id = ?"
_REKEY = f"UPDATE {_FTS}_idx SET term = ? WHERE segid = ? AND term = ?"
Key = tuple[int, bytes, int]  # a page's segment, key, and number as `_idx` keeps it (shifted)
_MAIN_INDEX = b"0"  # FTS5 writes the main index's words after this byte (prefix indexes: 1, 2..)
_PAGE_BITS = 37  # a leaf's rowid in `_data`: the segment's id above 37 bits, the page below
# A lookup (a word in a segment, inside SQLite) costs about as much as reading KEYS_A_LOOKUP of
# the segment index's keys into Python and testing them (2.5 us against 0.6 at 1M): the keys
# are read whole when that is cheaper (a forget's hundreds of words in a fresh 1M index: 3,164
# keys, 2 ms), looked up when fewer lookups are needed (a re-scan step's secrets among a few
# dozen segments of many keys). A re-scan's step takes no more turns than let its lookups stay
# under LOOKUPS_A_STEP.
KEYS_A_LOOKUP, LOOKUPS_A_STEP = 4, 4_000


def words_of(conn: Connection, splitter: index_words.Splitter, ids: Sequence[int]) -> set[str]:
    """The index's words of the turns `ids`, read before they are deleted."""
    texts: list[Sequence[str]] = []
    for chunk in chunks(ids):
        marks = ", ".join("?" * len(chunk))
        texts += [tuple(row) for row in conn.exec_driver_sql(_TEXTS + f"({marks})", tuple(chunk))]
    return splitter.words(texts)


def rekey_after_delete(conn: Connection, words: set[str]) -> int:
    """`rekey` once FTS5 has written out the deletes of the caller's transaction."""
    if not words:
        return 0
    conn.exec_driver_sql("SAVEPOINT recall_keys")  # FTS5 writes out its pending words here
    conn.exec_driver_sql("RELEASE recall_keys")
    return rekey(conn, words)


def rekey(conn: Connection, words: Iterable[str]) -> int:
    """Give a new key to each page whose key is a prefix of one of `words` (the index's words
    secure-delete took out, in the caller's transaction after FTS5 wrote them out) but not of
    the page's first word now; how many keys changed. The words are looked up segment by
    segment (inside SQLite), or met in one read of the segment index where that is cheaper."""
    wanted = sorted({_MAIN_INDEX + word.encode() for word in words})
    segments = [span[0] for level in fts_levels.levels(conn) for span in level.spans]
    if not segments:
        return 0
    keys_held = conn.exec_driver_sql(f"SELECT count(*) FROM {_FTS}_idx").scalar_one()
    if len(wanted) * len(segments) * KEYS_A_LOOKUP <= keys_held:
        keys = _keys_of(conn, wanted, segments)
    else:
        found = ((int(a), bytes(b), int(c)) for a, b, c in conn.exec_driver_sql(_KEYS))
        keys = [key for key in found if len(key[1]) > 1 and _prefix_of_one(key[1], wanted)]
    return sum(_rekey_page(conn, segment, key, pgno >> 1) for segment, key, pgno in keys)


def _keys_of(conn: Connection, wanted: list[bytes], segments: list[int]) -> list[Key]:
    keys: dict[Key, None] = {}
    listed = ", ".join(["(?)"] * len(segments))
    for at in range(0, len(wanted), _WORDS_A_STATEMENT):
        words = wanted[at : at + _WORDS_A_STATEMENT]
        statement = _KEYS_OF_WORDS.format(words=", ".join(["(?)"] * len(words)), segments=listed)
        for segment, key, pgno in conn.exec_driver_sql(statement, (*words, *segments)):
            keys[(int(segment), bytes(key), int(pgno))] = None
    return list(keys)


def _prefix_of_one(key: bytes, wanted: list[bytes]) -> bool:
    """Whether `key` begins one of `wanted` (sorted): the first word not below it does."""
    at = bisect.bisect_left(wanted, key)
    return at < len(wanted) and wanted[at].startswith(key)


def _rekey_page(conn: Connection, segment: int, key: bytes, page: int) -> int:
    first = _first_word(conn, segment, page)
    if first is None or first.startswith(key):
        return 0
    pairs = enumerate(zip(key, first, strict=False))
    shared = next((n for n, (a, b) in pairs if a != b), None)
    if shared is None:  # a page's first word never sorts before its key
        return 0
    conn.exec_driver_sql(_REKEY, (first[: shared + 1], segment, key))
    return 1


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

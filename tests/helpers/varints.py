"""SQLite's big-endian varints written, as FTS5 writes its records (history.store.sqlite.fts
`varints` reads them)."""

from __future__ import annotations


def varint(value: int) -> bytes:
    """SQLite's big-endian varint (values under 2**56)."""
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(groups))

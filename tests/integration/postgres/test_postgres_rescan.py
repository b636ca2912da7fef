"""Stored text follows the secret rules on PostgreSQL too: turns an older version stored with a
secret its rules missed are masked by the re-scan, and the old text is in none of the files of
the table, its TOAST table or their indexes once the scrub has run."""

from __future__ import annotations

from history import HistoryIndex
from tests.helpers.pg_files import relation_bytes, scrubbed
from tests.helpers.rescan_setup import MISSED, PLAIN_TURNS, PROJECT, SECRET, TOKEN
from tests.helpers.rescan_setup import record_under_older_rules as record_old


def test_a_secret_stored_under_older_rules_is_masked_and_gone_from_the_files(
    postgres_url: str,
) -> None:
    record_old(postgres_url)
    assert SECRET.encode() in relation_bytes(postgres_url)

    index = HistoryIndex.open(postgres_url)
    assert index.stats().rescan_left == PLAIN_TURNS + len(MISSED)
    done = index.rescan()
    assert (done.scanned, done.masked) == (PLAIN_TURNS + len(MISSED), len(MISSED))
    assert scrubbed(index)
    assert index.stats().rescan_left == 0
    assert not index.search(SECRET) and not index.search(TOKEN)
    turn = index.turn("missed-0")
    assert turn is not None and "[redacted:" in turn.asked
    assert index.count(PROJECT) == PLAIN_TURNS + len(MISSED)
    index.close()
    raw = relation_bytes(postgres_url)
    assert SECRET.encode() not in raw and TOKEN.encode() not in raw

"""record_many on PostgreSQL writes a batch as one statement (history/store/postgres/bulk.py):
new turns are stored as given, a changed turn is updated in place, an unchanged one is left."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from history import HistoryIndex
from history.importers.base import ImportedTurn

WHEN = datetime(2026, 5, 4, 3, 2, 1, 123456, tzinfo=UTC)


def turn(n: int, asked: str) -> ImportedTurn:
    return ImportedTurn(
        turn_id=f"t{n}", session_id="s", project="/work/p", asked=asked, answered="done",
        files=("src/é.py", "b.py"), edited=("b.py",), tools=("read_file",), tainted=n == 2,
        asked_at=WHEN + timedelta(minutes=n),
    )  # fmt: skip


def test_a_batch_stores_new_turns_updates_changed_ones_and_leaves_the_rest(
    postgres_url: str,
) -> None:
    index = HistoryIndex.open(postgres_url)
    first = [turn(1, "the walrus plan"), turn(2, "a tainted question"), turn(3, "kept as is")]
    assert index.record_many(first).new == 3
    again = [replace(first[0], asked="the narwhal plan"), first[2], turn(4, "a new one")]
    counts = index.record_many(again)
    assert (counts.new, counts.updated, counts.unchanged) == (1, 1, 1)
    stored = index.turn("t1")
    assert stored is not None and stored.asked == "the narwhal plan"
    assert stored.asked_at == WHEN + timedelta(minutes=1)
    assert stored.files == ("src/é.py", "b.py") and stored.edited == ("b.py",)
    tainted = index.turn("t2")
    assert tainted is not None and tainted.tainted
    assert [hit.turn_id for hit in index.search("narwhal")] == ["t1"]
    assert index.search("walrus") == []
    assert index.count() == 4
    index.close()

"""A forgotten turn's vector is gone from PostgreSQL's files too: after the forget's scrub (and a
CHECKPOINT), its bytes are in none of turn_vectors' relation files (the table, its TOAST table,
its index)."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

from history import HistoryIndex
from history.meaning.embedder import HashedWords
from history.meaning.vectors import quantized
from tests.helpers.pg_files import relation_bytes, scrubbed, url

DOOMED = "zebra quokka narwhal axolotl pangolin okapi"


KEPT = "routine change number 7 done"


def embedded_with_a_doomed_turn(index: HistoryIndex) -> HashedWords:
    """40 turns of one project and one of its own (DOOMED), each embedded by the fake model."""
    for n in range(40):
        index.record(
            turn_id=f"kept-{n}",
            session_id=f"kept-{n % 4}",
            project="/work/app",
            asked=f"routine change number {n}",
            answered="done",
        )
    index.record(
        turn_id="doomed", session_id="doomed", project="/work/doomed", asked=DOOMED, answered=""
    )
    fake = HashedWords()
    index.meaning(fake).embed()
    return fake


def test_a_forgotten_turns_vector_is_in_no_relation_file_after_the_scrub(
    postgres_url: str,
) -> None:
    index = HistoryIndex.open(postgres_url)
    try:
        fake = embedded_with_a_doomed_turn(index)
        vector = quantized(fake.embed([DOOMED]))[0].tobytes()
        assert vector in relation_bytes(url(index), "turn_vectors")  # the check can see it
        assert index.forget_session("doomed") == 1
        assert scrubbed(index)
        left = relation_bytes(url(index), "turn_vectors")
        assert vector not in left
        assert quantized(fake.embed([KEPT]))[0].tobytes() in left
    finally:
        index.close()

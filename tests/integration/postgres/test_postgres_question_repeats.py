"""The question's index holds the words each question repeats (question_index.py): a turn whose
question holds a query word once scores at most ONCE_CEILING for it, so once the turns repeating
it are ranked, the turns naming it once that cannot pass the k-th best are never read."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store.postgres import question_index, schema, search
from tests.helpers.engines import engine_of
from tests.helpers.postgres import ranking_statements

OWN = "/p1"


def test_the_ceiling_is_above_what_one_occurrence_in_the_question_can_reach() -> None:
    # ts_rank: (1 + sum over later occurrences of weight / n²) / 1.64493406685, weight <= 0.4.
    assert (1 + 0.4 * (math.pi**2 / 6 - 1)) / 1.64493406685 < question_index.ONCE_CEILING


@pytest.fixture(scope="module")
def index(postgres_url_for_module: str) -> Any:
    opened = HistoryIndex.open(postgres_url_for_module)
    now = datetime.now(UTC)

    def turn(n: int, asked: str, answered: str = "done", project: str = OWN) -> ImportedTurn:
        return ImportedTurn(
            turn_id=f"t{n}",
            session_id=f"s{n // 10}",
            project=project,
            asked=asked,
            answered=answered,
            files=("src/zorbleflux.py",) if n % 2 else (),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(minutes=n),
        )

    turns = [turn(n, "step zorbleflux", "zorbleflux " * (n % 7)) for n in range(300)]
    # Older than every turn naming it once: only their repeats rank them first.
    turns += [turn(n, "zorbleflux zorbleflux and zorbleflux") for n in range(300, 310)]
    turns += [turn(n, "rename 12e5abc 12e5abc 12e5abc", project="/p2") for n in range(310, 320)]
    turns += [turn(n, "rename 12e5abc", "12e5abc", project="/p2") for n in range(320, 400)]
    assert opened.record_many(turns).new == 400
    yield opened
    opened.close()


def test_the_index_holds_the_words_a_question_repeats(index: HistoryIndex) -> None:
    with engine_of(index).connect() as conn:
        held = conn.execute(
            text(
                f"SELECT tsvector_to_array({question_index.QUESTION_WORDS}) FROM turns"
                " WHERE turn_id = 't300'"
            )
        ).scalar_one()
    assert set(held) == {"r_zorbleflux", "zorbleflux", "and", schema.project_tag(OWN)}


# In one project, the repeats' part alone asks the question's index (the others ask the
# project's own index).
REPEATS_PART = f"{question_index.QUESTION_WORDS} @@"


def test_the_turns_repeating_a_word_are_ranked_first_and_the_rest_left_unread(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", 0)  # part by part
    statements, found = ranking_statements(index, "zorbleflux", OWN)
    assert [hit.turn_id for hit in found] == ["t301", "t303", "t305", "t307", "t309"]  # files too
    assert not found.approximate
    # One statement: the turns repeating it. The 300 naming it once score at most
    # ONCE_CEILING, below the fifth best of those, and are not asked for.
    assert len(statements) == 1 and REPEATS_PART in statements[0]


def test_a_word_the_parser_splits_keeps_the_ceiling_of_one(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", 0)
    statements, found = ranking_statements(index, "12e5abc", "/p2")
    assert [hit.turn_id for hit in found] == ["t310", "t311", "t312", "t313", "t314"]
    assert all(REPEATS_PART not in statement for statement in statements)


PLACES = st.lists(st.sampled_from(["files", "answered"]), max_size=40)


@settings(max_examples=60, deadline=None)
@given(places=PLACES, filler=st.integers(min_value=0, max_value=300))
def test_one_occurrence_in_the_question_stays_under_the_ceiling(
    index: HistoryIndex, places: list[str], filler: int
) -> None:
    texts = {"asked": ["lead", "needle"], "files": ["src/x.py"], "answered": ["pad"] * filler}
    for place in places:
        texts[place].append("needle")
    with engine_of(index).connect() as conn:
        rank = conn.execute(
            text(
                f"SELECT ts_rank('{search.WEIGHTS}', {schema.vector_expression(schema.WITH_TAG)},"
                " plainto_tsquery('simple', 'needle')) FROM (SELECT CAST(:asked AS text) AS asked,"
                " CAST(:files AS text) AS files, CAST(:answered AS text) AS answered,"
                " CAST('/p' AS text) AS project) AS turn"
            ),
            {place: " ".join(words) for place, words in texts.items()},
        ).scalar_one()
    assert 0 < rank <= question_index.ONCE_CEILING


def test_the_search_sessions_keep_a_common_words_bitmap_exact(index: HistoryIndex) -> None:
    # Lossy, a bitmap's rows are rechecked by computing the question's index expression again:
    # at 1M turns a common word's bitmap outgrew the default 4 MB and one statement took 313 ms.
    with engine_of(index).connect() as conn:
        assert conn.exec_driver_sql("SHOW work_mem").scalar() == "16MB"
        assert conn.exec_driver_sql("SHOW jit").scalar() == "off"

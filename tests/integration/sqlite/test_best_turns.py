"""The common words' lists of best turns (history/store/sqlite/best_turns.py): what they hold,
what a search gets from them, and that a forget or a rewrite leaves nothing stale in them.

Small data takes the paths a million turns would: every word gets a list (LIST_FROM_ROWS 1), a
list keeps its best 6 turns, and a budget of a few rows makes the search without lists rank a
common word in its newest turns only.
"""

from __future__ import annotations

import itertools
import random
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from history import HistoryIndex, upkeep
from history.query import stem
from history.ranking import idf
from history.store.sqlite import (
    best_turns,
    best_turns_upkeep,
    fts,
    fts_search,
    merges,
    rank_extension,
    word_counts,
)
from tests.helpers.engines import engine_of
from tests.helpers.lists import lists_compiled, use_small_lists
from tests.helpers.oracle import assert_top_k, exhaustive
from tests.helpers.templates import built_copy

pytestmark = pytest.mark.skipif(
    rank_extension.library_path() is None, reason="recall_best_turns is not compiled here"
)

NOW = datetime.now(UTC)
WORDS = ["parser", "cache", "zeppelin", "lexer", "token", "buffer", "socket", "thread"]
SHIPPED_UP_TO_SHARE = best_turns.LIST_UP_TO_SHARE  # read before `small_lists` widens it


@pytest.fixture(autouse=True)
def small_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    use_small_lists(monkeypatch)


def record(index: HistoryIndex, n: int, rng: random.Random, project: str = "/p") -> None:
    asked = rng.choices(WORDS, weights=range(len(WORDS), 0, -1), k=rng.randint(1, 6))
    answered = rng.choices(WORDS, weights=range(len(WORDS), 0, -1), k=rng.randint(0, 30))
    index.record(
        turn_id=f"t{n:03d}",
        session_id=f"s{n // 10}",
        project=project,
        asked=" ".join(asked),
        answered=" ".join(answered) + f" filler{n}" * rng.randint(0, 20),
        asked_at=NOW - timedelta(minutes=1000 - n),
    )


@pytest.fixture
def index(tmp_path: Path) -> HistoryIndex:
    return lists_compiled(built_copy(tmp_path / "history.db", __name__, fill))


def fill(index: HistoryIndex) -> None:
    rng = random.Random(7)
    for n in range(150):
        record(index, n, rng, project=f"/p{n % 2}")
    assert index.tidy()  # the upkeep builds the lists (with the small lists set above)


def scores_alone(index: HistoryIndex, word: str) -> dict[int, float]:
    """Every turn's bm25 for `word` alone, from recall_bm25."""
    with engine_of(index).connect() as conn:
        sql = (
            "SELECT rowid, -recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.0) FROM turns_fts "
            "WHERE turns_fts MATCH :w"
        )
        return {int(r): float(s) for r, s in conn.execute(text(sql), {"w": f'"{word}"'})}


def listed(index: HistoryIndex, word: str) -> best_turns.BestTurns:
    with engine_of(index).connect() as conn:
        found = best_turns.read(conn, stem(word), None)
    assert found is not None
    return found


def idf_and_average(index: HistoryIndex, word: str) -> tuple[float, float]:
    with engine_of(index).connect() as conn:
        rows = fts.indexed_rows(conn)
        holding = conn.execute(
            text("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :w"), {"w": f'"{word}"'}
        ).scalar_one()
        return idf(rows, holding), fts.average_length(conn)


@pytest.mark.parametrize("word", ["parser", "token", "socket"])
def test_a_list_holds_its_words_best_turns_scored_to_the_bit_as_recall_bm25(
    index: HistoryIndex, word: str
) -> None:
    truth = scores_alone(index, word)
    term_idf, average = idf_and_average(index, word)
    found = listed(index, word).scores(term_idf, average)
    assert len(found) == best_turns.DEPTH
    assert found == {turn: truth[turn] for turn in found}  # exact floats, not approx
    lowest = min(found.values())
    assert all(score <= lowest for turn, score in truth.items() if turn not in found)
    left_out = listed(index, word).left_out(term_idf, average)
    assert max(s for t, s in truth.items() if t not in found) <= left_out


@pytest.mark.parametrize("query", ["parser", "token", "socket", "thread"])
def test_a_common_word_is_ranked_exactly_from_its_list_where_the_budget_would_cut_it(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 8)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
    hits = index.search(query, k=3)
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, query.split(), None), 3)


@pytest.mark.parametrize("project", [None, "/p0"])
@pytest.mark.parametrize("query", ["socket buffer", "zeppelin parser cache", "thread lexer token"])
def test_with_the_lists_a_search_in_parts_is_the_exhaustive_ranking(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch, query: str, project: str | None
) -> None:
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    hits = index.search(query, project=project, k=5)
    assert_top_k(hits, exhaustive(index, query.split(), project), 5)


@pytest.mark.parametrize("query", ["socket buffer", "zeppelin parser cache", "thread lexer token"])
def test_with_the_lists_a_search_ranked_at_once_is_the_exhaustive_ranking(
    index: HistoryIndex, query: str
) -> None:
    """Within the budget the whole query is one part: its rarest word's list holds none of the
    turns that hold only the other words, so the part is not taken from the list."""
    hits = index.search(query, k=5)
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, query.split(), None), 5)


def test_without_its_list_the_same_search_is_cut_short(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 8)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
    monkeypatch.setattr(best_turns, "read", lambda *args: None)
    assert index.search("parser", k=3).approximate


def test_turns_recorded_after_the_list_was_built_are_ranked_too(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 8)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
    index.record(
        turn_id="newest",
        session_id="s-new",
        project="/p0",
        asked="parser parser parser",
        answered="parser",
        asked_at=NOW,
    )
    hits = index.search("parser", k=3)  # the upkeep has not run: the list does not hold it
    assert hits[0].turn_id == "newest"
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, ["parser"], None), 3)


def test_a_forgotten_turn_leaves_no_row_in_any_list(index: HistoryIndex) -> None:
    with engine_of(index).connect() as conn:
        top = conn.exec_driver_sql(
            "SELECT turn_id FROM best_turns WHERE word = ? ORDER BY turn_id", (stem("parser"),)
        ).first()
        assert top is not None
        session = conn.exec_driver_sql(
            "SELECT session_id FROM turns WHERE id = ?", (top[0],)
        ).scalar_one()
        ids = [
            r
            for (r,) in conn.exec_driver_sql(
                "SELECT id FROM turns WHERE session_id = ?", (session,)
            )
        ]
    index.forget_session(session)
    with engine_of(index).connect() as conn:
        marks = ", ".join("?" for _ in ids)
        left = conn.exec_driver_sql(
            f"SELECT count(*) FROM best_turns WHERE turn_id IN ({marks})", tuple(ids)
        ).scalar_one()
    assert left == 0
    hits = index.search("parser", k=10)
    assert all(hit.session_id != session for hit in hits)
    assert_top_k(hits, exhaustive(index, ["parser"], None), 10)


def test_a_rewritten_turn_is_ranked_by_fts5_until_its_list_is_built_again(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = listed(index, "zeppelin").built_upto
    with engine_of(index).begin() as conn:
        conn.exec_driver_sql(
            "UPDATE turns SET asked = 'zeppelin zeppelin zeppelin', answered = '' WHERE id = 20"
        )
    after = listed(index, "zeppelin")
    assert after.built_upto == 19 < before
    assert 20 not in {turn for turn, _, _ in after.turns}
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    hits = index.search("zeppelin", k=3)
    assert hits[0].turn_id == "t019"  # id 20
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, ["zeppelin"], None), 3)


def test_the_upkeep_builds_a_list_again_once_the_index_has_grown(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = listed(index, "parser").built_upto
    rng = random.Random(8)
    for n in range(150, 170):
        record(index, n, rng)
    assert index.tidy()
    assert listed(index, "parser").built_upto == 170
    assert built == 150


def test_a_file_without_the_lists_tables_searches_as_before(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file opened read-only before it could be migrated has no lists: no error."""
    with engine_of(index).begin() as conn:
        for statement in best_turns.drop_statements():
            conn.exec_driver_sql(statement)
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    hits = index.search("parser", k=5)  # one word: its own part is always ranked
    assert_top_k(hits, exhaustive(index, ["parser"], None), 5)


@pytest.mark.parametrize("project", ["/p0", "/p1"])
@pytest.mark.parametrize("query", WORDS)
def test_a_project_search_takes_a_list_only_where_it_proves_the_part(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch, query: str, project: str
) -> None:
    """A project holds part of a list: where that part cannot prove the word's best turns, the
    search ranks them with FTS5 as before (here cut short by a small budget, and saying so)."""
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 8)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
    hits = index.search(query, project=project, k=3)
    if not hits.approximate:
        assert_top_k(hits, exhaustive(index, [query], project), 3)


def test_a_project_search_is_exact_from_the_list_where_the_budget_would_cut_it(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 8)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
    hits = index.search("parser", project="/p1", k=3)
    assert not hits.approximate  # its list's share in /p1 beats what the list left out
    assert_top_k(hits, exhaustive(index, ["parser"], "/p1"), 3)


def test_a_word_in_four_fifths_of_the_turns_has_a_list_and_is_not_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At 1M the slowest searches were one word in a third to four fifths of the turns: no word
    # over a quarter had a list, so its part was ranked in windows of its newest turns.
    monkeypatch.setattr(best_turns, "LIST_UP_TO_SHARE", SHIPPED_UP_TO_SHARE)
    index = HistoryIndex.open(tmp_path / "history.db")
    for n in range(100):
        index.record(
            turn_id=f"t{n:03d}",
            session_id=f"s{n // 10}",
            project="/p",
            asked="simplified parser" if n % 5 else "parser",
            answered=f"filler{n} " * (n + 1),  # each turn its own length: no ties
            asked_at=NOW - timedelta(minutes=100 - n),
        )
    assert index.tidy()
    assert listed(index, "simplified").turns
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 8)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
    hits = index.search("simplified", k=3)
    assert not hits.approximate
    assert_top_k(hits, exhaustive(index, ["simplified"], None), 3)
    index.close()


def locked(conn: Connection) -> bool:
    """Whether `conn` is in the upkeep's write transaction (BEGIN IMMEDIATE)."""
    return conn.get_execution_options().get("sqlite_begin") == "IMMEDIATE"


def recorded(tmp_path: Path) -> HistoryIndex:
    """A new file of 150 turns in one project, its upkeep not run yet."""
    index = HistoryIndex.open(tmp_path / "history.db")
    rng = random.Random(7)
    for n in range(150):
        record(index, n, rng)
    return index


def test_the_upkeep_samples_the_common_words_outside_its_write_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Splitting and stemming the sample's words takes ~100 ms at any size: a record would wait
    # that long on the upkeep's step if it ran inside one.
    sampled_in: list[bool] = []
    sample = best_turns.common_words

    def watched(conn: Connection) -> tuple[list[tuple[str, str]], dict[str, str]]:
        sampled_in.append(locked(conn))
        return sample(conn)

    monkeypatch.setattr(best_turns, "common_words", watched)
    index = recorded(tmp_path)
    assert index.tidy()
    assert listed(index, "parser").built_upto == 150
    assert sampled_in and not any(sampled_in)
    index.close()


@pytest.fixture
def reads_watched(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For each list built and word counted, whether it was read in a write transaction."""
    read_in: list[bool] = []
    built, count = best_turns.computed, word_counts.count

    def watched_built(conn: Connection, form: str, lengths: bytes | None) -> object:
        read_in.append(locked(conn))
        return built(conn, form, lengths)

    def watched_count(conn: Connection, form: str, word: str | None = None) -> int:
        read_in.append(locked(conn))
        return count(conn, form, word)

    monkeypatch.setattr(best_turns, "computed", watched_built)
    monkeypatch.setattr(word_counts, "count", watched_count)
    # Steps only when the test asks (tidy): none while it records.
    monkeypatch.setattr(upkeep, "QUIET_SECONDS", 3600.0)
    return read_in


def test_the_upkeep_builds_lists_and_counts_words_outside_its_write_transactions(
    tmp_path: Path, reads_watched: list[bool]
) -> None:
    # A list's walk of its word's rows, every row's length and the counts took 72-78 ms of a
    # step at 1M after a forget: a record waited that long on the step.
    index = recorded(tmp_path)
    assert index.tidy()
    assert listed(index, "parser").built_upto == 150
    assert len(reads_watched) >= len(WORDS) and not any(reads_watched)
    # A forget empties the counts: they are taken again, outside too.
    reads_watched.clear()
    assert index.forget_session("s3") == 10
    assert index.tidy()
    with engine_of(index).connect() as conn:
        assert word_counts.read(conn, [stem("parser")], fts.indexed_rows(conn))
    assert reads_watched and not any(reads_watched)
    index.close()


def test_writes_that_never_pause_still_let_the_lists_be_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads_watched: list[bool]
) -> None:
    # Every step finds the index written to since its reads: after a few such steps in a row
    # it reads under its write lock, as before.
    index = recorded(tmp_path)
    written = iter(range(10**9))
    monkeypatch.setattr(best_turns_upkeep, "structure", lambda conn: str(next(written)).encode())
    assert index.tidy(seconds=60)
    assert listed(index, "parser").built_upto == 150
    assert any(reads_watched)
    index.close()


def test_a_step_that_merges_stops_the_lists_reading_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads_watched: list[bool]
) -> None:
    # Regression: once a list step had more left, the next steps read ahead for the lists even
    # while they merged, and each merge threw those reads away (the upkeep after a 100k import
    # of the second corpus took 15-38 s instead of 3-6).
    monkeypatch.setattr(best_turns_upkeep, "STEP_SECONDS", 0.0)  # a list or a count a step
    index = recorded(tmp_path)
    while not reads_watched:  # up to the first list built, with more left
        assert index._maintenance.step(2, nullcontext()) == "more"
    reads_watched.clear()
    # Steps that merge, each changing the index (bounded_pages: what a thread's step may merge).
    merged = itertools.count()
    structure = best_turns_upkeep.structure
    monkeypatch.setattr(merges, "bounded_pages", lambda conn, pages: pages)
    monkeypatch.setattr(merges, "merged", lambda conn, pages: merges.WORKED + 0 * next(merged))
    monkeypatch.setattr(
        best_turns_upkeep, "structure", lambda conn: structure(conn) + repr(merged).encode()
    )
    for _ in range(20):
        assert index._maintenance.step(2, nullcontext()) == "more"
    assert len(reads_watched) <= 1  # one step's reads, not twenty
    index.close()

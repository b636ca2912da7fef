"""The fast full-text path returns exhaustive bm25's top k, scored the same, on small data.

Small data takes the paths a million turns would: parts of the matching turns ranked one by one,
the common words reached only when they could still matter, and, once the work budget is spent,
the newest-turns window.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex, project_key
from history.store.search_plan import Window
from history.store.sqlite import exact_forms, fts_search, rank_extension
from history.store.sqlite.fts import project_tag
from history.store.sqlite.fts_parts import WEIGHTS, Part
from tests.helpers.engines import engine_of
from tests.helpers.oracle import assert_top_k, exhaustive
from tests.helpers.templates import built_copy, migrated_copy

NOW = datetime.now(UTC)


@pytest.fixture(autouse=True, params=["recall_bm25", "bm25()"])
def ranking_function(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs with the compiled recall_bm25 (where this install built it) and with
    FTS5's bm25(), which the search falls back to where it did not."""
    if request.param == "bm25()":
        monkeypatch.setenv(rank_extension.DISABLE_VARIABLE, "1")
    return str(request.param)


@pytest.fixture
def index(tmp_path: Path, ranking_function: str) -> HistoryIndex:
    return built_copy(tmp_path / "history.db", f"{__name__} {ranking_function}", fill)


def fill(index: HistoryIndex) -> None:
    for n in range(80):
        asked = "parser cache " * (n % 4) + ("zeppelin " * (1 + n % 3) if n % 8 == 0 else "")
        index.record(
            turn_id=f"t{n:02d}",
            session_id=f"s{n // 10}",
            project=f"/p{n % 2}",
            asked=asked + f"step {n}",
            answered="the parser and the cache " * (n % 5),
            files=[f"src/mod{n % 7}.py"],
            asked_at=NOW - timedelta(hours=80 - n),
        )


@pytest.fixture(params=["at once", "in parts"])
def ranking(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Small data is ranked at once; "in parts" takes the path a large index takes."""
    if request.param == "in parts":
        monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    return str(request.param)


@pytest.mark.parametrize("project", [None, "/p0"])
@pytest.mark.parametrize(
    "query", ["zeppelin parser cache", "parser cache", "cache step zeppelin", "step", "mod3 parser"]
)
def test_the_fast_ranking_is_the_exhaustive_one(
    index: HistoryIndex, ranking: str, query: str, project: str | None
) -> None:
    hits = index.search(query, project=project, k=5)
    assert_top_k(hits, exhaustive(index, query.split(), project), 5)


def test_a_common_word_is_not_ranked_when_it_cannot_change_the_top_k(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    ranked: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    real = fts_search._ranked

    def spy(conn: Any, part: Any, *rest: Any) -> Any:
        ranked.append((part.held, part.any_of))
        return real(conn, part, *rest)

    monkeypatch.setattr(fts_search, "_ranked", spy)
    hits = index.search("zeppelin step", k=3)  # zeppelin: 10 turns, step: all 80
    assert_top_k(hits, exhaustive(index, ["zeppelin", "step"], None), 3)
    # Turns holding only "step" score below the third best holding both: never ranked.
    assert ranked[0] == (("zeppelin",), ("step",))
    assert [held for held, _ in ranked] == [("zeppelin",)] * len(ranked)


def test_once_the_work_budget_is_spent_a_common_word_is_searched_in_the_newest_turns(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "WORK_BUDGET", 20)
    monkeypatch.setattr(fts_search, "WINDOW_ROWS", 20)
    hits = index.search("step", k=5)  # in all 80 turns
    assert len(hits) == 5
    assert all(int(hit.turn_id[1:]) >= 60 for hit in hits)  # from the newest quarter


def test_a_project_tag_typed_as_a_word_matches_no_turn(index: HistoryIndex) -> None:
    # The tag column weighs 0 in bm25: a turn matched there alone is no match.
    assert index.search(project_tag(project_key("/p0"))) == []
    assert index.search(project_tag(project_key("/p0")), project="/p0") == []


_words = st.sampled_from(["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen"])


# `ranking` patches the same thing for every example: safe to share.
@settings(
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    texts=st.lists(st.lists(_words, min_size=1, max_size=12), min_size=1, max_size=40),
    query=st.lists(_words, min_size=1, max_size=4, unique=True),
    k=st.integers(1, 6),
)
def test_any_corpus_any_query_the_fast_top_k_is_exhaustive_bm25s(
    tmp_path_factory: pytest.TempPathFactory,
    ranking: str,
    texts: list[list[str]],
    query: list[str],
    k: int,
) -> None:
    index = HistoryIndex.open(migrated_copy(tmp_path_factory.mktemp("h") / "history.db"))
    for n, words in enumerate(texts):
        index.record(
            turn_id=f"t{n}",
            session_id="s",
            project="/p",
            asked=" ".join(words[: len(words) // 3]),
            answered=" ".join(words[len(words) // 3 :]),
            asked_at=NOW - timedelta(minutes=n),
        )
    hits = index.search(" ".join(query), k=k)
    assert_top_k(hits, exhaustive(index, query, None), k)
    index.close()


def test_document_frequencies_are_cached_and_refreshed_as_the_index_grows(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search, "CACHE_FROM_ROWS", 0)
    search = index._repository._fts  # type: ignore[attr-defined]
    index.search("zeppelin")
    assert search._document_frequency["zeppelin"] == 10
    for n in range(20):
        index.record(
            turn_id=f"new{n}",
            session_id="new",
            project="/p0",
            asked="zeppelin again",
            answered="",
        )
    index.search("zeppelin")
    assert search._document_frequency["zeppelin"] == 30


def test_a_word_searched_before_it_was_recorded_is_found_after(
    index: HistoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: a cached document frequency of 0 dropped the word from later searches until
    # the index had grown by a tenth.
    monkeypatch.setattr(fts_search, "CACHE_FROM_ROWS", 0)
    assert index.search("quokka") == []
    index.record(turn_id="q", session_id="q", project="/p0", asked="the quokka bug", answered="")
    assert [hit.turn_id for hit in index.search("quokka")] == ["q"]


def test_an_update_of_the_project_alone_reindexes_the_row(index: HistoryIndex) -> None:
    # project_tag is computed from project, so turns_au must watch project itself.
    with engine_of(index).begin() as conn:
        conn.execute(text("UPDATE turns SET project = '/moved' WHERE turn_id = 't00'"))
    assert [hit.turn_id for hit in index.search("zeppelin", project="/moved")] == ["t00"]
    assert "t00" not in [hit.turn_id for hit in index.search("zeppelin", project="/p0", k=10)]


def test_a_turn_the_exact_form_lifts_from_below_the_candidates_is_found_or_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bm25 ranks "proactiveness" said twice above "proactive" said once; the bonus for the form
    # typed lifts the older turn over all of them. Each part returns its best few by bm25.
    index = HistoryIndex.open(tmp_path / "history.db")
    texts = ["we were proactive here"] + ["proactiveness, proactiveness here"] * 12
    texts += [f"filler turn {n}" for n in range(60)]
    for n, asked in enumerate(texts):
        index.record(
            turn_id=f"t{n:02d}",
            session_id="s",
            project="/p",
            asked=asked,
            answered="",
            asked_at=NOW - timedelta(hours=100 - n),
        )
    found = index.search("proactive", k=1)
    assert [hit.turn_id for hit in found] == ["t00"]
    assert not found.approximate
    # Each part returns its best 3 + 1 by bm25: t00 is below them, so the part is ranked again
    # deeper, and t00 found.
    monkeypatch.setattr(exact_forms, "CANDIDATES_PER_PART", 3)
    found = index.search("proactive", k=1)
    assert [hit.turn_id for hit in found] == ["t00"]
    assert not found.approximate
    # Not allowed deeper: the result says it may have missed one.
    monkeypatch.setattr(exact_forms, "DEEPEST", 4)
    found = index.search("proactive", k=1)
    assert found.approximate
    index.close()


def _newest_best(
    index: HistoryIndex, match: str, window: int, limit: int
) -> tuple[dict[int, float], int]:
    """bm25 of the newest `window` + 1 turns `match` matches (every one when they are no
    more), the best `limit` of them; and how many turns it matches."""
    sql = (
        f"SELECT rowid, -bm25(turns_fts, {WEIGHTS}) FROM turns_fts WHERE turns_fts MATCH ?"
        " ORDER BY rowid DESC"
    )
    with engine_of(index).connect() as conn:
        rows = conn.exec_driver_sql(sql, (match,)).all()
    newest = {int(rowid): float(score) for rowid, score in rows[: window + 1]}
    best = sorted(newest.items(), key=lambda item: (-item[1], -item[0]))[:limit]
    return dict(best), len(rows)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    texts=st.lists(
        st.tuples(st.lists(_words, min_size=1, max_size=10), st.sampled_from(["/a", "/b"])),
        min_size=1,
        max_size=40,
    ),
    held=st.lists(_words, min_size=1, max_size=2, unique=True),
    any_of=st.lists(_words, max_size=2, unique=True),
    scoped=st.booleans(),
    window=st.integers(1, 30),
    limit=st.integers(1, 8),
)
def test_a_windowed_part_ranks_its_newest_turns_and_says_whether_they_were_all(
    tmp_path_factory: pytest.TempPathFactory,
    texts: list[tuple[list[str], str]],
    held: list[str],
    any_of: list[str],
    scoped: bool,
    window: int,
    limit: int,
) -> None:
    # One walk newest first scores the window's turns (fts_search._ranked): the best of them by
    # bm25, and "whole" exactly when the part matched no more than the window.
    index = HistoryIndex.open(migrated_copy(tmp_path_factory.mktemp("h") / "history.db"))
    for n, (words, project) in enumerate(texts):
        index.record(
            turn_id=f"t{n}",
            session_id="s",
            project=project,
            asked=" ".join(words[: len(words) // 3]),
            answered=" ".join(words[len(words) // 3 :]),
            asked_at=NOW - timedelta(minutes=n),
        )
    tag = project_tag(project_key("/a")) if scoped else None
    part = Part(held, [w for w in any_of if w not in held], tag)
    with engine_of(index).connect() as conn:
        counted = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?"
        counts = {
            phrase: int(conn.exec_driver_sql(counted, (f'"{phrase}"',)).scalar_one())
            for phrase in part.phrases
        }
        given = counts if conn.connection.info.get(rank_extension.FUNCTION) else None
        found, _, whole = fts_search._ranked(
            conn, part, given, None, limit, Window.newest_from(window)
        )
    expected, matched = _newest_best(index, part.match, window, limit)
    assert whole == (matched <= window)
    assert sorted(found.values(), reverse=True) == pytest.approx(
        sorted(expected.values(), reverse=True), rel=1e-9
    )
    newest = _newest_best(index, part.match, window, matched)[0]
    for rowid, score in found.items():
        assert score == pytest.approx(newest[rowid], rel=1e-9)
    index.close()


def test_a_window_after_a_larger_one_is_whole_when_it_holds_every_match(
    index: HistoryIndex,
) -> None:
    # recall_bm25 counts the rows each walk scored, per connection: a walk that scores none
    # (no match) or few must not read the count the walk before it left.
    with engine_of(index).connect() as conn:
        counts = None
        if conn.connection.info.get(rank_extension.FUNCTION):
            counts = {"step": 80, "zeppelin": 10, "absent": 0}
        *_, whole = fts_search._ranked(
            conn, Part(["step"], [], None), counts, None, 5, Window.newest_from(20)
        )
        assert not whole  # 80 turns, a window of 20
        *_, whole = fts_search._ranked(
            conn, Part(["absent"], [], None), counts, None, 5, Window.newest_from(20)
        )
        assert whole
        *_, whole = fts_search._ranked(
            conn, Part(["zeppelin"], [], None), counts, None, 5, Window.newest_from(20)
        )
        assert whole
        *_, whole = fts_search._ranked(
            conn, Part(["step"], [], None), counts, None, 5, Window.newest_from(79)
        )
        assert not whole
        *_, whole = fts_search._ranked(
            conn, Part(["step"], [], None), counts, None, 5, Window.newest_from(80)
        )
        assert whole


def _budget(frequency: dict[str, int], tag: str | None) -> fts_search._Budget:
    return fts_search._Budget(frequency, tag, counts_read=False, rows=100_000)


def test_a_part_whose_words_are_rarely_together_is_ranked_whole_not_windowed() -> None:
    # 30% and 3% of the turns, in a project of a quarter of them: ~225 turns if independent,
    # a ninetieth of the 20,000 the budget would window a project's part to. A window would
    # cost a walk of every match, newest first.
    budget = _budget({"common": 30_000, "rare": 3_000, "ptag": 25_000}, "ptag")
    assert budget.window(["common"], ["rare"]) == Window.whole()
    every = _budget({"common": 90_000, "rare": 3_000}, None)
    assert every.window(["common"], ["rare"]) == Window.whole()  # ~2,700 of 80,000


def test_a_part_expected_to_fill_less_than_half_its_window_is_ranked_whole() -> None:
    # A window costs a walk newest first and a subquery: at 1M, ranking a part of 65,695 turns
    # whole took 0.73 of its 80,000 window (bench/RESULTS.md).
    budget = _budget({"common": 30_000, "ptag": 25_000}, "ptag")  # ~7,500 of 20,000
    assert budget.window(["common"], []) == Window.whole()
    every = _budget({"common": 98_000, "other": 34_000}, None)  # ~33,300 of 80,000
    assert every.window(["common"], ["other"]) == Window.whole()


def test_a_part_expected_to_fill_its_window_is_still_windowed() -> None:
    budget = _budget({"common": 50_000, "ptag": 25_000}, "ptag")  # ~12,500 of 20,000
    assert budget.window(["common"], []) == Window.newest_from(
        int(fts_search.WORK_BUDGET / fts_search.PROJECT_ROW_COST)
    )
    every = _budget({"common": 90_000, "other": 95_000}, None)  # ~85,500 of 80,000
    assert every.window(["common"], ["other"]) == Window.newest_from(fts_search.WORK_BUDGET)

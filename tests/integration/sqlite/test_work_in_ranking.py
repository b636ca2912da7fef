"""A turn's work (commands, failures, the lines its edits added) adds its weighted hits to the
turn's score, and its words to the turn's length, but a word's count of turns (its idf) leaves
the work out: in recall_bm25 (fts5_rank.c), the Python definition (history/ranking.py), the
counts kept beside the index (word_counts.py) and the common words' lists (best_turns.py).
Before, a word common in code weighed less in what was asked too (bench/RESULTS.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex
from history.query import stem, words
from history.ranking import (
    COLUMN_WEIGHTS,
    WORK_COLUMN,
    bm25_scores,
    exact_form_bonus,
    idf,
    score_bound,
    share_of_best,
)
from history.store.sqlite import best_turns, fts, fts_search, rank_extension, word_counts
from tests.helpers.engines import engine_of
from tests.helpers.lists import lists_compiled, use_small_lists
from tests.helpers.oracle import assert_top_k
from tests.helpers.templates import migrated_copy

pytestmark = pytest.mark.skipif(
    rank_extension.library_path() is None, reason="recall_bm25 is not compiled here"
)

NOW = datetime.now(UTC)
PYTEST_RUN = "$ pytest tests/test_cli.py\n! FAILED tests/test_cli.py::test_login - AssertionError\n"


def test_the_work_column_is_the_one_the_ranking_leaves_out() -> None:
    assert fts.TEXT_COLUMNS[WORK_COLUMN] == "work"
    assert len(COLUMN_WEIGHTS) == len(fts.TEXT_COLUMNS)


def test_work_text_does_not_lower_a_words_weight_in_asked(tmp_path: Path) -> None:
    """`test` is in forty turns' work (each ran the tests) and in one question: that turn is
    the one a search for `test parser` is after, above turns that ask about the parser twice.
    Counted in the whole row, `test` was in every turn and weighed nothing (idf 1e-6): those
    turns ranked first, the one asked about the test last."""
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record(
        turn_id="asked",
        session_id="s",
        project="/p",
        asked="the flaky test of the parser",
        answered="fixed",
        asked_at=NOW - timedelta(days=2),
    )
    for n in range(40):
        index.record(
            turn_id=f"t{n:02d}",
            session_id="s",
            project="/p",
            asked=f"parser parser rewrite {n}" if n < 3 else f"refactor module {n}",
            answered="done",
            work=PYTEST_RUN,
            asked_at=NOW - timedelta(hours=n),
        )
    hits = index.search("test parser", k=3)
    index.close()
    assert hits[0].turn_id == "asked"


def definition(index: HistoryIndex, terms: list[str]) -> dict[str, float]:
    """Every turn's score by history/ranking.py (bm25 with the work left out of the counts and
    lengths, the project tag a fifth column of one token and no weight) plus the exact-form
    bonus, as a share of the most a turn could score: what a search must return the best of."""
    with engine_of(index).connect() as conn:
        rows = conn.execute(
            text("SELECT turn_id, asked, answered, files, work, project_tag FROM turns")
        ).all()
    documents = [tuple(words(value or "") for value in row[1:]) for row in rows]
    scores, term_idf = bm25_scores(documents, terms, len(rows), (*COLUMN_WEIGHTS, 0.0))
    bounds = [score_bound(value) for value in term_idf.values()]
    wanted = {stem(term) for term in terms}
    return {
        str(row[0]): share_of_best(
            score + exact_form_bonus(terms, [value or "" for value in row[1:5]], term_idf), bounds
        )
        for row, score, doc in zip(rows, scores, documents, strict=True)
        if any(stem(word) in wanted for column in doc[:4] for word in column)
    }


_words = st.sampled_from(["parser", "cache", "test", "error", "tabs", "fix", "build", "run"])


@pytest.mark.parametrize("parts", [False, True])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    turns=st.lists(
        st.tuples(
            st.lists(_words, min_size=1, max_size=8), st.lists(_words, min_size=0, max_size=20)
        ),
        min_size=1,
        max_size=30,
    ),
    query=st.lists(_words, min_size=1, max_size=3, unique=True),
    k=st.integers(1, 5),
)
def test_with_work_the_fast_top_k_is_the_definitions(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    parts: bool,
    turns: list[tuple[list[str], list[str]]],
    query: list[str],
    k: int,
) -> None:
    if parts:  # the path a large index takes: the matching turns ranked part by part
        monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    index = HistoryIndex.open(migrated_copy(tmp_path_factory.mktemp("h") / "history.db"))
    for n, (said, work) in enumerate(turns):
        index.record(
            turn_id=f"t{n}",
            session_id="s",
            project="/p",
            asked=" ".join(said[:3]),
            answered=" ".join(said[3:]),
            work="\n".join(f"+ {word}" for word in work),
            asked_at=NOW - timedelta(minutes=n),
        )
    hits = index.search(" ".join(query), k=k)
    truth = definition(index, query)
    index.close()
    assert_top_k(hits, truth, k)


def test_the_counts_and_lists_kept_beside_the_index_leave_out_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_small_lists(monkeypatch)
    index = HistoryIndex.open(tmp_path / "history.db")
    for n in range(60):
        index.record(
            turn_id=f"t{n:02d}",
            session_id="s",
            project="/p",
            asked="parser " * (n % 3) + f"step {n}",
            answered="the cache " * (n % 4),
            work=PYTEST_RUN + "~ src/parser.py\n" + "+ parser = cache\n" * (n % 5) if n % 2 else "",
            asked_at=NOW - timedelta(hours=60 - n),
        )
    lists_compiled(index)
    assert index.tidy()  # the upkeep builds the lists and keeps the counts
    outside = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH :m"
    with engine_of(index).connect() as conn:
        for word in ("parser", "cache", "pytest", "failed"):
            held = conn.execute(
                text(outside), {"m": f'{{asked answered files}} : "{word}"'}
            ).scalar_one()
            kept = word_counts.read(conn, [stem(word)], fts.indexed_rows(conn))
            assert kept.get(stem(word), 0) == held, word
        # 30 turns ran pytest, none asked about it: no turn holds it where it counts.
        assert word_counts.count(conn, "pytest") == 0
        parser = best_turns.read(conn, "parser", None)
        assert parser is not None
        rows = fts.indexed_rows(conn)
        term_idf = idf(rows, word_counts.read(conn, ["parser"], rows)["parser"])
        truth = {
            int(r): float(s)
            for r, s in conn.execute(
                text(
                    "SELECT rowid, -recall_bm25(turns_fts, 3.0, 1.0, 1.0, 0.5, 0.0) FROM turns_fts"
                    " WHERE turns_fts MATCH 'parser'"
                )
            )
        }
        found = parser.scores(term_idf, fts.average_length(conn))
    index.close()
    assert found == {turn: truth[turn] for turn in found}  # exact floats, not approx
    assert len(found) == 6

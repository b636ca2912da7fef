"""The bench's second corpus (bench.corpus2) and its tantivy yardstick: the generator is seeded,
follows the measured lengths of real whole turns, speaks a vocabulary of its own; and on samples
of every generator the fast ranking is the exhaustive one, with both ranking functions."""

from __future__ import annotations

import itertools
import json
import shutil
import statistics
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench import common_mix, corpus, corpus2, work_mix
from bench.common_mix import common_vocabulary
from bench.corpus import GeneratedTurn, Query
from bench.corpus2 import law, lengths
from bench.corpus2.world import projects
from bench.phases import recall_exhaustive
from bench.vocabulary import vocabulary
from history import HistoryIndex
from history.query import terms, words
from history.ranking import COLUMN_WEIGHTS
from history.store.sqlite import fts_search, listed_rest, rank_extension
from tests.helpers.bench_runs import run_bench
from tests.helpers.lists import lists_compiled, use_small_lists
from tests.helpers.oracle import assert_top_k, exhaustive

END = datetime(2026, 6, 1, tzinfo=UTC)
SAMPLE = 300  # turns of each generator in an oracle index
SHARED_WORDS_AT_MOST = 0.35  # of the second vocabulary's distinct words, also the first's


@pytest.fixture(params=["recall_bm25", "bm25()"])
def ranking_function(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """As in tests/integration/sqlite/test_fast_search.py: the compiled recall_bm25, and
    FTS5's bm25()."""
    if request.param == "bm25()":
        monkeypatch.setenv(rank_extension.DISABLE_VARIABLE, "1")
    return str(request.param)


def sample(stream: Iterator[GeneratedTurn], count: int) -> list[GeneratedTurn]:
    return list(itertools.islice(stream, count))


def test_the_same_seed_gives_the_same_turns_and_queries() -> None:
    assert sample(corpus2.turns(7, END), 200) == sample(corpus2.turns(7, END), 200)
    assert sample(corpus2.turns(7, END), 50) != sample(corpus2.turns(8, END), 50)
    assert corpus2.queries(50, 7) == corpus2.queries(50, 7)
    assert corpus2.common_queries(50, 7) == corpus2.common_queries(50, 7)


def test_turn_lengths_follow_the_real_whole_turns() -> None:
    real = lengths.real_lengths()
    made = sample(corpus2.turns(7, END), 2000)
    for field in ("asked", "answered", "work"):
        measured = statistics.median(getattr(turn, field) for turn in real)
        generated = statistics.median(len(words(getattr(turn, field))) for turn in made)
        assert abs(generated - measured) <= 0.2 * measured, field
        longest = max(getattr(turn, field) for turn in real)
        assert max(len(words(getattr(turn, field))) for turn in made) <= longest * 1.1 + 1


def test_the_work_logs_are_in_the_importers_format_and_leave_the_texts_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = sample(corpus2.turns(7, END), 500)
    kinds = {line[:2] for turn in made for line in turn.work.splitlines()}
    assert kinds == {"$ ", "! ", "~ ", "- ", "+ "}
    assert sum(not turn.work for turn in made) / len(made) < 0.4
    edited = [turn for turn in made if turn.edited and "\n~ " in f"\n{turn.work}"]
    assert edited and all(
        line[2:] in turn.edited
        for turn in edited
        for line in turn.work.splitlines()
        if line.startswith("~ ")
    )
    # The work has an RNG of its own: without it, the same asked and answered texts.
    # (bench.corpus2.turns names the generator; its module is the one that calls work_log)
    monkeypatch.setattr(sys.modules["bench.corpus2.turns"], "work_log", lambda *args: "")
    again = sample(corpus2.turns(7, END), 500)
    assert not any(turn.work for turn in again)
    assert [(t.asked, t.answered) for t in again] == [(t.asked, t.answered) for t in made]


def test_the_vocabulary_is_mostly_its_own() -> None:
    first = {word for entry in (*vocabulary(), *common_vocabulary()) for word in words(entry)}
    second = set(law.words())
    assert len(second) > 5000
    assert len(second & first) <= SHARED_WORDS_AT_MOST * len(second)


def test_a_year_of_sessions_of_varied_length_in_twenty_projects() -> None:
    made = sample(corpus2.turns(7, END), 6000)
    sessions = itertools.groupby(made, key=lambda turn: turn.session_id)
    per_session = [len(list(turns)) for _, turns in sessions]
    assert len({turn.project for turn in made}) == 20
    assert min(per_session) <= 3 and max(per_session) >= 60
    days = (END - min(turn.asked_at for turn in made)).days
    assert 300 <= days <= 366
    text = " ".join(turn.answered for turn in made[:2000])
    assert "Traceback (most recent call last):" in text and ": error:" in text
    assert any("_" in word for word in text.split()) and any(
        "." in f for t in made for f in t.files
    )


@pytest.mark.parametrize("make", [corpus2.queries, corpus2.common_queries])
def test_queries_are_one_to_four_words_of_the_new_vocabulary(
    make: Callable[[int, int], list[Query]],
) -> None:
    asked = make(200, 7)
    known = {term for word in law.words() for term in terms(word)}
    names = {term for p in projects(7) for n in p.identifiers for term in terms(n)}
    assert {len(query.terms) for query in asked} == {1, 2, 3, 4}
    assert all(set(query.terms) <= known | names for query in asked)


# The oracle: on samples of every generator, both query mixes each, the fast ranking is the
# exhaustive one (ranked at once, and in parts as a large index is); the second corpus's turns
# and the first's work mix carry work logs, which the ranking weighs and does not count.
Generator = tuple[
    Callable[[int, datetime], Iterator[GeneratedTurn]], Callable[[int, int], list[Query]]
]
GENERATORS: dict[str, Generator] = {
    "first": (corpus.turns, corpus.queries),
    "first-common": (common_mix.turns, common_mix.queries),
    "first-work": (work_mix.turns, corpus.queries),
    "second": (corpus2.turns, corpus2.queries),
    "second-common": (corpus2.turns, corpus2.common_queries),
}


@pytest.fixture(scope="module")
def sample_databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each generator's sample, recorded once: its file and its busiest project."""
    made: dict[str, tuple[Path, str]] = {}
    for name, (turns, _) in GENERATORS.items():
        path = tmp_path_factory.mktemp(name) / "history.db"
        if name == "second-common":
            made[name] = made["second"]
            continue
        index = HistoryIndex.open(path)
        turns_made = sample(turns(7, END), SAMPLE)
        assert index.record_many(turns_made).new == SAMPLE
        index.close()
        busiest = statistics.mode(turn.project for turn in turns_made)
        made[name] = (path, busiest)
    return made


@pytest.mark.parametrize("scope", ["every", "project"])
@pytest.mark.parametrize("ranking", ["at once", "in parts"])
@pytest.mark.parametrize("generator", list(GENERATORS))
def test_on_a_sample_of_each_generator_the_fast_ranking_is_the_exhaustive_one(
    sample_databases: dict[str, tuple[Path, str]],
    monkeypatch: pytest.MonkeyPatch,
    ranking_function: str,
    generator: str,
    ranking: str,
    scope: str,
) -> None:
    if ranking == "in parts":
        monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    path, busiest = sample_databases[generator]
    project = busiest if scope == "project" else None
    index = HistoryIndex.open(path)
    try:
        for query in GENERATORS[generator][1](6, 7):
            hits = index.search(query.text, project=project, k=5)
            assert_top_k(hits, exhaustive(index, list(query.terms), project), 5)
    finally:
        index.close()


@pytest.mark.skipif(rank_extension.library_path() is None, reason="no compiled ranking here")
@pytest.mark.parametrize("scope", ["every", "project"])
@pytest.mark.parametrize("generator", list(GENERATORS))
def test_with_the_best_turns_lists_a_sample_of_each_generator_is_ranked_exactly(
    sample_databases: dict[str, tuple[Path, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    generator: str,
    scope: str,
) -> None:
    # As tests/integration/sqlite/test_best_turns.py: every word a list, a budget of a few rows;
    # and the lists asked to end every search of two words or more (listed_rest.py).
    use_small_lists(monkeypatch)
    monkeypatch.setattr(listed_rest, "WORTH_FROM_ROWS", 0)
    monkeypatch.setattr(listed_rest, "MOST_LOOKED_UP", 1_000)
    path, busiest = sample_databases[generator]
    project = busiest if scope == "project" else None
    shutil.copy(path, tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    try:
        lists_compiled(index)
        assert index.tidy()  # the upkeep builds the lists
        monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
        for query in GENERATORS[generator][1](6, 7):
            hits = index.search(query.text, project=project, k=5)
            assert_top_k(hits, exhaustive(index, list(query.terms), project), 5)
    finally:
        index.close()


def a_turn(turn_id: str, asked: str, answered: str, project: str = "/p") -> GeneratedTurn:
    return GeneratedTurn(turn_id, "s", project, asked, answered, (), (), (), False, END)


def test_the_yardstick_weighs_the_fields_as_the_shipped_scoring(tmp_path: Path) -> None:
    pytest.importorskip("tantivy")
    from bench.tantivy_yardstick import TantivyIndex, weighted_fields

    assert list(weighted_fields().values()) == [w for w in COLUMN_WEIGHTS if w > 0]
    padding = " ".join(f"word{n}" for n in range(30))
    made = [
        a_turn("in-answer", padding, f"zeppelin zeppelin {padding}"),
        a_turn("in-asked", f"zeppelin {padding}", padding),
        *(a_turn(f"other{n}", padding, f"plain {padding}", project="/q") for n in range(20)),
    ]
    index = TantivyIndex(tmp_path / "tantivy")
    assert index.build(made)[0] == len(made)
    # Held twice in the answer weighs less than once in the asked text (3 against 1).
    assert index.search(["zeppelins"]) == ["in-asked", "in-answer"]  # stemmed, too
    assert index.search(["plain"], project="/p") == []
    assert len(index.search(["plain"], project="/q")) == 5


def test_a_second_corpus_run_reports_each_search_figure_as_a_ratio_to_tantivy(
    tmp_path: Path,
) -> None:
    pytest.importorskip("tantivy")
    done = run_bench(
        tmp_path, "--corpus", "second", "--yardstick", "tantivy", "--phases", "import", "search"
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    metrics = {(line["metric"], line["impl"]) for line in lines}
    for scope in ("every", "project"):
        for p in (50, 95):
            for impl in ("tantivy", "recall/tantivy", "baseline/tantivy"):
                assert (f"search_{scope}_p{p}", impl) in metrics
        assert (f"top5_overlap_{scope}", "recall") in metrics


@pytest.mark.parametrize("generator", ["second", "first-work"])
def test_the_bench_reference_ranking_is_the_search_where_it_is_exact(
    sample_databases: dict[str, tuple[Path, str]], ranking_function: str, generator: str
) -> None:
    # The bench's top-5 overlap compares each search with recall_exhaustive: on turns with
    # work logs it counted words in the work and left the work out of the exact-form bonus,
    # so exact searches of the second corpus scored an overlap of 0.935 at 1M.
    path, _ = sample_databases[generator]
    index = HistoryIndex.open(path)
    try:
        for query in GENERATORS[generator][1](12, 7):
            hits = index.search(query.text, k=5)
            assert not hits.approximate
            reference = recall_exhaustive(index, list(query.terms), None, 5)
            assert {hit.turn_id for hit in hits} == set(reference), query.text
    finally:
        index.close()

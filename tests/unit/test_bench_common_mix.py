"""The bench's second mix (`--mix common`) is what issue 21 describes: every query word one of
the 3,000 most frequent, 1-4 of them; turns of 8-40 and 40-250 words with 0-5 files. And a
small run of it counts the searches cut short beside the raw baseline."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from bench import common_mix
from history.query import terms
from tests.helpers.bench_runs import run_bench


def test_queries_are_one_to_four_of_the_most_frequent_words() -> None:
    pool = [word for word in common_mix.common_vocabulary() if terms(word)][:3000]
    allowed = {term for word in pool for term in terms(word)}
    asked = common_mix.queries(200, seed=7)
    assert len(common_mix.common_vocabulary()) == common_mix.VOCABULARY_SIZE
    assert all(1 <= len(query.terms) <= 4 for query in asked)
    assert all(set(query.terms) <= allowed for query in asked)
    assert {len(query.terms) for query in asked} == {1, 2, 3, 4}
    assert asked == common_mix.queries(200, seed=7)  # seeded


def test_turns_have_the_described_lengths_and_files() -> None:
    sample = list(itertools.islice(common_mix.turns(seed=7), 300))
    assert all(8 <= len(turn.asked.split()) <= 40 for turn in sample)
    assert all(40 <= len(turn.answered.split()) <= 250 for turn in sample)
    assert {len(turn.files) for turn in sample} == set(range(6))
    assert len({turn.project for turn in sample}) > 1


def test_a_common_mix_run_counts_the_searches_cut_short(tmp_path: Path) -> None:
    done = run_bench(tmp_path, "--records", "5", "--mix", "common", "--phases", "import", "search")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    metrics = {(line["metric"], line["impl"]) for line in lines}
    assert ("search_every_approximate", "recall") in metrics
    assert {("search_every_p95", "baseline"), ("top5_overlap_every", "recall")} <= metrics

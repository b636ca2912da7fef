"""The bench's work mix (`--mix work`): the standard turns with a work log each, in the format
the importers write, and a raw baseline that stores and searches the same work column."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

from bench import corpus, work_mix
from bench.baseline import Baseline
from history import HistoryIndex
from history.importers.whole import edits


def test_the_work_mix_is_the_standard_turns_each_with_a_work_log_the_importers_read_back() -> None:
    with_work = list(itertools.islice(work_mix.turns(seed=7), 400))
    standard = list(itertools.islice(corpus.turns(seed=7), 400))
    assert [t.turn_id for t in with_work] == [t.turn_id for t in standard]
    assert [t.answered for t in with_work] == [t.answered for t in standard]
    assert sum(bool(t.work) for t in with_work) > 300
    for turn in with_work:
        assert [edit.path for edit in edits(turn.work)] == list(turn.edited)


def test_a_word_only_in_the_work_is_found_by_recall_and_by_the_raw_baseline(
    tmp_path: Path,
) -> None:
    turns = list(itertools.islice(work_mix.turns(seed=7), 200))
    turn = next(t for t in turns if t.edited)
    marked = [t if t is not turn else replace(t, work=f"{t.work}\n$ zyzzyva") for t in turns]
    raw = Baseline(tmp_path / "raw.db", work=True)
    raw.begin()
    raw.record_batch(marked)
    raw.commit()
    assert [row[0] for row in raw.search(["zyzzyva"])] == [turn.turn_id]
    raw.close()
    assert not Baseline(tmp_path / "plain.db").work  # the other mixes keep the old table
    index = HistoryIndex.open(tmp_path / "recall.db")
    index.record_many(marked)
    assert [hit.turn_id for hit in index.search("zyzzyva")] == [turn.turn_id]
    index.close()

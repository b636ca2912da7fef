"""A re-scan under new secret rules holds the write lock in short steps however much text it has
to mask: each step rewrites a bounded amount of text (the commit writes the full-text index's
segment for all of it, and cannot be cut short), and the index's merges run in steps of their
own. Counted, not timed: the time bound is set out of reach, so only the bound on text acts."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Connection, event

from history import HistoryIndex
from history.importers.base import ImportedTurn
from history.store import rescan
from history.store.sqlite import fts, fts_levels, index_words, merges
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import file_bytes
from tests.helpers.rescan_setup import SECRET, older_version

PROJECT = "/work/long-answers"
LEAKS = 24
# Each turn holds about 12,000 characters: four fit in a step of 100,000 rewritten.
ANSWER = " ".join(f"line {n} of the build log, target parser{n % 97} compiled" for n in range(240))


def record_long_leaks(path: Path) -> None:
    with older_version():
        index = HistoryIndex.open(path)
        assert index.tidy()
        record_leaks(index, LEAKS, lambda n: ANSWER)
        assert index.tidy()
        index.close()


def record_leaks(index: HistoryIndex, leaks: int, answered: Callable[[int], str]) -> None:
    """`leaks` turns recorded one by one, each asking with a password the newer rules mask."""
    for n in range(leaks):
        index.record(
            turn_id=f"leak-{n}",
            session_id="s-long",
            project=PROJECT,
            asked=f"Mot de passe : {SECRET}{n:03d}x",
            answered=answered(n),
        )


def test_a_rescan_step_rewrites_bounded_text_however_long_it_may_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_long_leaks(tmp_path / "history.db")
    monkeypatch.setattr(rescan, "HOLD_SECONDS", 60.0)  # time never cuts a step short here
    monkeypatch.setattr(rescan, "MOST_CHARS", 100_000)
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()  # the steps run here, one by one
    steps: list[rescan.Step] = []
    while (step := index._maintenance.rescan_step(nullcontext())).more:
        steps.append(step)
    weight = 2 * (len(ANSWER) + len(f"Mot de passe : {SECRET}000x"))
    assert sum(step.masked for step in steps) == LEAKS
    assert all(step.rewritten_chars <= 100_000 for step in steps)
    assert max(step.masked for step in steps) == 100_000 // weight  # as many as fit, no more
    assert not index.search(f"{SECRET}007x")
    assert index.count(PROJECT) == LEAKS
    assert index.tidy()
    assert SECRET.encode() not in file_bytes(tmp_path)
    index.close()


def test_a_single_turn_longer_than_a_step_is_still_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_long_leaks(tmp_path / "history.db")
    monkeypatch.setattr(rescan, "MOST_CHARS", 1_000)  # less than any one turn
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    masked = [step.masked for step in iter_steps(index)]
    assert sum(masked) == LEAKS and max(masked) == 1  # one turn a step, never none
    index.close()


def test_rescan_steps_merge_the_index_in_bounded_steps_not_inside_a_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each step's commit adds a segment; left to FTS5, a level's segments are merged inside
    # whichever commit crosses its limit. The steps merge them instead, a few pages at a time.
    record_long_leaks(tmp_path / "history.db")
    monkeypatch.setattr(rescan, "MOST_CHARS", 1_000)  # a turn a step: LEAKS segments
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    with engine_of(index).connect() as conn:
        rows = conn.exec_driver_sql(f"SELECT k, v FROM {fts.FTS_TABLE}_config").all()
        options: dict[str, object] = {str(k): v for k, v in rows}
    assert int(str(options.get("automerge", 4))) == 0  # no commit merges on its own
    most = 0
    while index._maintenance.rescan_step(nullcontext()).more:  # counted after each step
        with engine_of(index).connect() as conn:
            most = max(most, fts_levels.segment_count(conn))
    assert most <= 8  # merged as they came, not left to pile up
    index.close()


def iter_steps(index: HistoryIndex) -> list[rescan.Step]:
    steps: list[rescan.Step] = []
    while (step := index._maintenance.rescan_step(nullcontext())).more:
        steps.append(step)
    return steps


def test_the_scrub_a_rescan_owes_rewrites_the_index_in_short_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A forget's own scrub may take long steps (a record waiting on one goes to the spool); the
    # scrub a re-scan owes takes the upkeep's, whatever the forget's steps have learnt. Turns
    # masked the usual way (not in the index itself, in_place.py) owe the index's rewrite.
    monkeypatch.setattr(index_words.Splitter, "split", lambda self, old, new: None)
    record_long_leaks(tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    index._maintenance._forgetting.steps.sizes.pages = 100_000  # type: ignore[attr-defined]
    asked: list[int] = []
    rewriting: list[bool] = []
    merge = fts.merge_statement

    def counted(pages: int) -> str:
        asked.append(abs(pages))
        rewriting.append(pages < 0)
        return merge(pages)

    monkeypatch.setattr(fts, "merge_statement", counted)
    assert index.rescan().masked == LEAKS
    assert asked and max(asked) < 1_000 and any(rewriting)  # the rewrite began (negative pages)
    assert SECRET.encode() not in file_bytes(tmp_path)
    index.close()


def test_a_rescan_steps_commits_never_copy_the_wal_back_with_the_lock_held(tmp_path: Path) -> None:
    # A commit that crosses wal_autocheckpoint copies the whole WAL back before it lets go of
    # the lock (100-170 ms at 100k turns); the re-scan copies it between its steps instead.
    record_long_leaks(tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    autocheckpoint: list[int] = []

    def committing(conn: Connection) -> None:
        raw = conn.connection.driver_connection
        assert raw is not None
        autocheckpoint.append(raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0])

    event.listen(engine_of(index), "commit", committing)
    assert sum(step.masked for step in iter_steps(index)) == LEAKS
    assert autocheckpoint and set(autocheckpoint) == {0}
    index.close()


def test_a_rescan_step_adds_one_index_segment_however_many_turns_it_masks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5 writes the words pending in memory out as a segment at each statement's start: a
    # statement a turn left a segment a turn, and at 256 on a level FTS5 merged them all inside
    # the write that crossed it (~3,700 pages with the lock held at 100k turns). A step writes
    # its turns in one statement, so it adds one segment whatever it masks. Counted, not timed.
    with older_version():
        index = HistoryIndex.open(tmp_path / "history.db")
        assert index.tidy()
        for n in range(120):
            index.record(
                turn_id=f"short-{n}",
                session_id="s-short",
                project=PROJECT,
                asked=f"Mot de passe : {SECRET}{n:03d}x",
                answered=f"ok {n}",
            )
        assert index.tidy()
        index.close()
    monkeypatch.setattr(rescan, "HOLD_SECONDS", 60.0)  # the text alone bounds a step here
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    steps = index._maintenance._rescan  # type: ignore[attr-defined]
    added: list[tuple[int, int]] = []
    while True:
        with engine_of(index).connect() as conn:
            before = fts_levels.segment_count(conn)
        step = steps.step(nullcontext())
        if not step.more:
            break
        with engine_of(index).connect() as conn:
            added.append((step.masked, fts_levels.segment_count(conn) - before))
    assert sum(masked for masked, _ in added) == 120
    assert max(masked for masked, _ in added) >= 50  # many turns a step, not one
    assert all(segments <= 1 for _, segments in added)
    assert not index.search(f"{SECRET}007x")
    index.close()


def test_one_slow_commit_does_not_leave_every_later_step_at_one_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A step learnt its commit's cost per character only from steps rewriting more than
    # SOME_CHARS: after one slow commit a step had room for one turn of fewer, and none ever
    # unlearnt it (at 10% of 1M turns masked, 99,115 steps for 100,000 turns).
    with older_version():
        index = HistoryIndex.open(tmp_path / "history.db")
        assert index.tidy()
        record_leaks(index, 200, lambda n: f"step {n} " + "ok " * 500)  # ~3,000 rewritten each
        assert index.tidy()
        index.close()
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    first = [True]

    def slow_first_commit(conn: Connection) -> None:
        if first:
            first.clear()
            time.sleep(1.5)

    event.listen(index._maintenance._rescan_writer, "commit", slow_first_commit)  # type: ignore[attr-defined]
    masked = [step.masked for step in iter_steps(index)]
    assert sum(masked) == 200
    assert masked[0] > 1 and max(masked[1:]) >= 4  # back to many turns a step
    index.close()


LARGE_TURNS, LATER_LEAKS = 3_000, 300


def record_a_large_index_then_leaks(path: Path) -> None:
    """An index whose import left one large segment (its common words' lists long), then leaks
    recorded one by one (small segments of their own)."""
    with older_version():
        index = HistoryIndex.open(path)
        assert index.tidy()
        imported = (
            ImportedTurn(
                turn_id=f"old-{n}",
                session_id=f"s-old-{n % 50}",
                project=PROJECT,
                asked=f"why does the build {n} fail on the parser and the linker",
                answered="the parser and the linker disagree on the target " * 8,
                files=("src/parser.py",),
                edited=(),
                tools=(),
                tainted=False,
                asked_at=datetime.now(UTC),
            )
            for n in range(LARGE_TURNS)
        )
        assert index.record_many(imported).new == LARGE_TURNS
        assert index.tidy()
        record_leaks(index, LATER_LEAKS, lambda n: f"the parser and the linker, take {n}. " * 20)
        index.close()


def segment_spans(index: HistoryIndex) -> list[tuple[int, int, int]]:
    with engine_of(index).connect() as conn:
        found = fts_levels.levels(conn)
    return [span for level in found for span in level.spans]


@pytest.mark.parametrize(
    ("bounds", "at_most"),
    [
        # Small merges read up to 64 pages: the steps' own segments merged as they come.
        (fts_levels.Bounds(64, crowded=64, slow_pages=64), 16),
        # Small merges read up to 4 pages, level 0 never crowded: the slow merges alone keep
        # the levels from piling up (left to FTS5: 240 segments at once).
        (fts_levels.Bounds(4, crowded=1_000, slow_pages=64), 24),
    ],
    ids=["small-merges", "slow-merges"],
)
def test_rescan_merges_never_read_the_index_s_large_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bounds: fts_levels.Bounds, at_most: int
) -> None:
    # FTS5 checks a merge's page budget only between words: a merge that reads a large segment
    # writes each common word's whole list of turns in one piece, whatever pages it was asked
    # for (at 1M turns, 290-370 ms with the lock held). The re-scan's merges take its own
    # segments only: the import's large one is never read (nor trimmed) during the steps. And
    # FTS5 merges the level holding the most segments: once that was a level of the re-scan's
    # own segments too large for a small merge, every level below had to hold as many before it
    # was merged, and the levels piled up until FTS5 merged one at `crisismerge` (256) inside a
    # step's write (at 1M turns, 10% of them masked: 207-285 ms). Such a level is merged a page
    # a statement. Counted, not timed.
    record_a_large_index_then_leaks(tmp_path / "history.db")
    monkeypatch.setattr(rescan, "MOST_CHARS", 1_000)  # a turn a step, a segment a step
    monkeypatch.setattr(merges, "BOUNDS", bounds)
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    spans = segment_spans(index)
    large = max(spans, key=lambda span: span[2] - span[1])
    assert large[2] - large[1] + 1 > 64
    most = masked = 0
    while (step := index._maintenance.rescan_step(nullcontext())).more:
        masked += step.masked
        spans = segment_spans(index)
        assert large in spans  # neither merged away nor trimmed by a merge under way
        most = max(most, len(spans))
    assert masked == LATER_LEAKS
    assert most <= at_most
    assert not index.search(f"{SECRET}007x")
    assert index.tidy()
    assert SECRET.encode() not in file_bytes(tmp_path)
    index.close()

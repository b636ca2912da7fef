"""Stored text follows the secret rules: turns stored by an older version, whose rules missed a
secret, are re-scanned when a newer version opens the file (by its upkeep, or at once with
`recall doctor --rescan`); the secret is masked and its bytes are gone from the file and its
log; `recall stats` says how much is left to re-scan."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from history import HistoryIndex
from tests.helpers.cli_runs import recall
from tests.helpers.forgetting import file_bytes
from tests.helpers.rescan_setup import (
    MISSED,
    PLAIN_TURNS,
    PROJECT,
    SECRET,
    TOKEN,
    older_version,
    record_leaks_in_one_batch,
)
from tests.helpers.rescan_setup import record_under_older_rules as record_old

TURNS = PLAIN_TURNS + len(MISSED)


def held(home: Path) -> set[str]:
    raw = file_bytes(home)
    return {secret for secret in (SECRET, TOKEN) if secret.encode() in raw}


def assert_masked(index: HistoryIndex) -> None:
    for n in range(len(MISSED)):
        turn = index.turn(f"missed-{n}")
        assert turn is not None
        shown = turn.asked + turn.answered + "".join(turn.files)
        assert SECRET not in shown and TOKEN not in shown
        assert "[redacted:" in turn.asked
    assert not index.search(SECRET) and not index.search(TOKEN)
    assert index.count(PROJECT) == TURNS  # masked, not lost


def test_doctor_rescan_masks_what_the_older_rules_missed_and_scrubs_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record_old(str(tmp_path / "history.db"))
    assert held(tmp_path) == {SECRET, TOKEN}, "the older version did not store the secrets"

    code, out, _ = recall(capsys, "--home", str(tmp_path), "stats", "--json")
    assert code == 0 and json.loads(out)["rescan_left"] == TURNS
    code, out, _ = recall(capsys, "--home", str(tmp_path), "stats")
    assert f"{TURNS} turns stored under older secret rules" in out

    code, out, err = recall(capsys, "--home", str(tmp_path), "doctor", "--rescan")
    assert code == 0, err
    assert f"re-scanned {TURNS} of {TURNS} turns" in err  # its progress
    assert "Re-scanned 62 turns under the current secret rules: 2 masked" in out

    assert held(tmp_path) == set()
    index = HistoryIndex.open(tmp_path / "history.db")
    assert_masked(index)
    assert index.stats().rescan_left == 0
    index.close()
    code, out, _ = recall(capsys, "--home", str(tmp_path), "doctor", "--rescan")
    assert "Re-scanned 0 turns" in out


def test_any_process_that_opens_the_file_rescans_it_when_idle(tmp_path: Path) -> None:
    record_old(str(tmp_path / "history.db"))
    # A process that only searches (as `recall mcp` does) and writes nothing of its own.
    index = HistoryIndex.open(tmp_path / "history.db")
    deadline = time.monotonic() + 30
    while (index.stats().rescan_left or index.purge_pending) and time.monotonic() < deadline:
        assert index.search("parser", k=1)  # searching meanwhile does not wait for it
        time.sleep(0.1)
    assert index.stats().rescan_left == 0
    assert_masked(index)
    index.close()
    assert held(tmp_path) == set()


def test_a_file_filled_under_the_current_rules_is_never_rescanned(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    for n in range(3):
        index.record(turn_id=f"t{n}", session_id="s", project=PROJECT, asked="hi", answered="hi")
    assert index.stats().rescan_left == 0  # said when the file was made, before any upkeep
    index.close()
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.stats().rescan_left == 0
    assert index.rescan().scanned == 0
    index.close()


def test_an_older_version_does_not_undo_the_newer_rules_mark(tmp_path: Path) -> None:
    record_old(str(tmp_path / "history.db"))
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.rescan().masked == len(MISSED)
    index.close()
    with older_version():
        older = HistoryIndex.open(tmp_path / "history.db")
        assert older.tidy() and older.stats().rescan_left == 0
        older.close()
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.stats().rescan_left == 0
    index.close()


def test_retention_settings_do_not_show_the_rules_version(tmp_path: Path) -> None:
    record_old(str(tmp_path / "history.db"))
    index = HistoryIndex.open(tmp_path / "history.db")
    index.rescan()
    assert not index.retention()
    index.set_retention(30, PROJECT)
    assert index.retention().keep_days == {PROJECT: 30}
    index.close()


def test_many_masked_turns_in_a_step_leave_no_byte_of_their_secrets(tmp_path: Path) -> None:
    # Forty turns masked in one step, in the index itself (test_masking_in_place.py has the
    # usual way, which owes the index's rewrite).
    with older_version():
        index = HistoryIndex.open(tmp_path / "history.db")
        for n in range(40):
            index.record(
                turn_id=f"leak-{n}",
                session_id="s-leaks",
                project=PROJECT,
                asked=f"Mot de passe : {SECRET}{n:03d}x",
                answered="noted",
            )
        assert index.tidy()
        index.close()
    assert f"{SECRET}039x".encode() in file_bytes(tmp_path)
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.rescan().masked == 40
    assert not index.purge_pending
    assert not index.search(f"{SECRET}007x")
    assert SECRET.encode() not in file_bytes(tmp_path)  # before any later merge of the index
    index.close()


def test_what_is_read_before_the_rescan_reaches_it_is_shown_masked(tmp_path: Path) -> None:
    record_old(str(tmp_path / "history.db"))
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.stats().rescan_left == TURNS  # nothing re-scanned yet
    shown = [
        *index.search(SECRET),
        *index.search(f"{TOKEN} deploy"),
        *index.conversation("s-secret"),
    ]
    assert {turn.turn_id for turn in shown} >= {"missed-0", "missed-1"}
    turn = index.turn("missed-1")
    assert turn is not None
    shown.append(turn)
    first = [one.first_asked for one in index.conversations(PROJECT)]
    text = repr(shown) + repr(first)
    assert SECRET not in text and TOKEN not in text
    assert "[redacted:" in text
    index.close()


def test_a_rescan_counts_every_turn_it_masks_while_the_upkeep_thread_is_awake(
    tmp_path: Path,
) -> None:
    # The file opened owes a re-scan, so its upkeep thread looks for it after a second; a
    # `recall doctor --rescan` slower than that (a loaded machine) shared the re-scan with the
    # thread and reported only the turns it masked itself (1,489 of 1,500).
    path = tmp_path / "history.db"
    record_leaks_in_one_batch(str(path), 600)
    index = HistoryIndex.open(path)
    slept: list[bool] = []

    def slow_progress(scanned: int, total: int) -> None:
        if not slept:  # time for the thread to wake and take steps of its own
            slept.append(True)
            time.sleep(2.5)

    done = index.rescan(slow_progress)
    assert (done.scanned, done.masked) == (600, 600)
    assert not index.search(SECRET) and SECRET.encode() not in file_bytes(tmp_path)
    index.close()

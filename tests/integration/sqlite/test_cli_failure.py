"""No traceback from `recall`, ever: an unexpected error is one line naming where the details
went, exit code 3; Ctrl-C is exit 130."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from history.cli.failure import LOG_BYTES, reason, write_details

RECALL = Path(sys.executable).parent / "recall"
FAKE_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RECALL), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "RECALL_HOME": str(home)},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_an_unexpected_error_is_one_line_and_the_traceback_is_in_the_homes_log(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / "history.db").mkdir(parents=True)  # a folder where the database file should be

    failed = run(home, "search", "login")

    assert failed.returncode == 3
    assert "Traceback" not in failed.stderr and failed.stdout == ""
    [line] = failed.stderr.splitlines()
    log = home / "recall.log"
    assert line == (
        f"recall search failed: IsADirectoryError (Is a directory: {home / 'history.db'}); "
        f"details in {log}"
    )
    assert log.stat().st_mode & 0o777 == 0o600
    written = log.read_text()
    assert "recall search failed: IsADirectoryError" in written
    assert 'File "' in written and "in cmd_search" in written  # the traceback, for a bug report


def test_a_home_that_cannot_be_made_logs_to_the_temporary_folder(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    home = tmp_path / "a-file" / "home"

    failed = run(home, "stats")

    assert failed.returncode == 3 and "Traceback" not in failed.stderr
    fallback = Path(tempfile.gettempdir()) / f"recall-{os.getuid()}.log"
    assert failed.stderr.strip().endswith(f"; details in {fallback}")
    assert f"recall stats failed: NotADirectoryError (Not a directory: {home})" in (
        fallback.read_text()
    )


def test_a_secret_in_the_error_reaches_neither_the_sentence_nor_the_log(tmp_path: Path) -> None:
    try:
        open(f"/nonexistent/{FAKE_TOKEN}")  # noqa: SIM115 - the error is the point
    except OSError as error:
        leaking = error
    home = tmp_path / "home"

    sentence = reason(leaking)
    written = write_details("import", leaking, str(home))

    assert sentence.startswith("FileNotFoundError (No such file or directory: /nonexistent/")
    assert FAKE_TOKEN not in sentence and "[redacted:" in sentence
    assert written == home / "recall.log" and FAKE_TOKEN not in written.read_text()


def test_the_log_keeps_one_older_file_past_a_megabyte(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "history.db").mkdir(parents=True)
    (home / "recall.log").write_text("x" * (LOG_BYTES + 1))

    assert run(home, "search", "login").returncode == 3

    assert (home / "recall.log.1").stat().st_size == LOG_BYTES + 1
    assert (home / "recall.log").read_text().count("recall search failed") == 1


def _as_a_terminal_command() -> None:
    """SIGINT as a terminal's foreground command gets it: a suite started in the background
    (`cmd &` in a script) ignores SIGINT, and a program started ignoring it never sees Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_at_a_question_is_exit_130_without_a_traceback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(RECALL), "forget", "--session", "conv-1"],
        stdin=follower,
        stdout=follower,
        stderr=follower,  # without readline, Python asks on stderr
        env={**os.environ, "RECALL_HOME": str(home)},
        preexec_fn=_as_a_terminal_command,
    )
    os.close(follower)
    try:
        asked = read_for(leader, 30, until=b"[y/N]")
        assert b"[y/N]" in asked, asked
        # A signal that lands between the prompt and the read it waits in goes unnoticed until
        # the next one (as a person pressing Ctrl-C again would see): send it until it is
        # answered, and no more (one more during the exit would be Python's default: a kill).
        said = asked
        # The wait for each answer is long: a second signal while the process exits kills it,
        # and on a loaded machine the answer can take seconds.
        for _ in range(10):
            process.send_signal(signal.SIGINT)
            said += read_for(leader, 5.0, until=b"interrupted")
            if b"interrupted" in said:
                break
        process.wait(timeout=30)
        said += read_for(leader, 0.5)
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert said.decode().splitlines()[-1] == "recall forget: interrupted"
    assert b"Traceback" not in said


def read_for(terminal: int, seconds: float, until: bytes | None = None) -> bytes:
    """What the program wrote on its terminal within `seconds` (sooner once `until` is seen)."""
    got, deadline = b"", time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0 and not (until and until in got):
        if not select.select([terminal], [], [], left)[0]:
            break
        try:
            got += os.read(terminal, 1024)
        except OSError:  # the other end is closed: all was read
            break
    return got


def test_end_of_input_at_the_question_forgets_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(RECALL), "forget", "--session", "conv-1"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "RECALL_HOME": str(home)},
    )
    os.close(follower)
    try:
        os.write(leader, b"\x04")  # Ctrl-D: the terminal's end of input
        process.wait(timeout=30)
        said = read_for(leader, 0.5)
    finally:
        os.close(leader)
    assert process.returncode == 1, said
    assert said.decode().strip().endswith("nothing forgotten")


def test_a_link_planted_at_the_shared_log_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    victim = tmp_path / "someone-elses-file"
    victim.write_text("theirs\n")
    (shared / f"recall-{os.getuid()}.log").symlink_to(victim)
    (tmp_path / "a-file").write_text("")

    written = write_details("stats", RuntimeError("boom"), str(tmp_path / "a-file" / "home"))

    assert written is None and victim.read_text() == "theirs\n"

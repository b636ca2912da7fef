"""`recall watch`: sessions written by an agent become searchable while it writes them.

The watch loop runs in a thread on a temporary home laid out as Claude Code lays out its
store (and, for the process tests, as a real `recall watch` process with HOME pointing there).
"""

from __future__ import annotations

import json
import os
import plistlib
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from history import HistoryIndex
from history.importers import FORMATS
from history.importers.base import Places
from history.watch import service
from history.watch.follow import Imported, Settings, Watch
from history.watch.sources import TICK_MS
from history.watch.stores import too_broad
from tests.helpers.cli_runs import recall

LATENCY = 2.0  # seconds from an agent's last write to a searchable turn


def prompt(uuid: str, text: str, session: str = "s-live") -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": uuid,
        "sessionId": session,
        "cwd": "/home/dev/shop",
        "timestamp": "2026-03-01T10:00:00Z",
        "message": {"role": "user", "content": text},
    }


def answer(uuid: str, text: str, session: str = "s-live") -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": uuid,
        "sessionId": session,
        "message": {
            "id": f"m-{uuid}",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        },
    }


def write_lines(path: Path, lines: list[dict[str, Any]], pause: float = 0.05) -> float:
    """Append each line as an agent does, flushed one by one; the time of the last write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
            handle.flush()
            time.sleep(pause)
    return time.monotonic() - pause


def found(index: HistoryIndex, word: str) -> bool:
    return any(word in hit.asked for hit in index.search(word, k=5))


def wait_for(check: Callable[[], bool], seconds: float) -> float | None:
    """How long `check` took to hold, or None when it did not within `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():
            return time.monotonic() - started
        time.sleep(0.02)
    return None


@dataclass
class Live:
    index: HistoryIndex
    store: Path  # the Claude Code projects folder of the fake home
    said: list[Imported] = field(default_factory=list)
    noted: list[tuple[str, str]] = field(default_factory=list)

    def searchable_within(self, word: str, since: float, seconds: float = LATENCY) -> bool:
        waited = wait_for(lambda: found(self.index, word), seconds + 3)
        return waited is not None and time.monotonic() - waited - since <= seconds + 0.05


@contextmanager
def watching(
    tmp_path: Path, settings: Settings | None = None, store: bool = True
) -> Iterator[Live]:
    home = tmp_path / "home"
    projects = home / ".claude" / "projects"
    if store:
        projects.mkdir(parents=True)
    index = HistoryIndex.open(tmp_path / "index" / "history.db")
    live = Live(index, projects)
    places = Places(home, {}, "Linux")
    watch = Watch(
        index,
        list(FORMATS.values()),
        places,
        settings or Settings(),
        live.said.append,
        lambda event, detail: live.noted.append((event, detail)),
    )
    stop = threading.Event()
    thread = threading.Thread(target=watch.run, args=(stop,), daemon=True)
    thread.start()
    try:
        if store:  # a first session imported, and the watcher's first tick past: it is up
            write_lines(projects / "probe" / "probe.jsonl", [prompt("p1", "probe quokka", "probe")])
            assert wait_for(lambda: found(index, "quokka"), 10) is not None
            time.sleep(TICK_MS / 1000 + 0.3)
        yield live
    finally:
        stop.set()
        thread.join(10)
        index.close()
    assert not thread.is_alive()


def a_turn(n: int, word: str) -> list[dict[str, Any]]:
    return [prompt(f"u{n}", f"How does the {word} checkout work?"), answer(f"a{n}", "It works.")]


@pytest.mark.timing_sensitive
def test_a_session_written_line_by_line_is_searchable_within_2_seconds(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        session = live.store / "shop" / "s-live.jsonl"
        lines = [*a_turn(1, "aardvark"), *a_turn(2, "badger"), *a_turn(3, "capybara")]
        last = write_lines(session, lines)
        assert live.searchable_within("capybara", last)
        assert found(live.index, "aardvark") and found(live.index, "badger")
        # one burst of six lines, read once (at most twice if a batch closed mid-burst); an
        # import is said a moment after its turns are in the index
        assert wait_for(lambda: any(done.path == session for done in live.said), 5) is not None
        assert len([done for done in live.said if done.path == session]) <= 2


def test_a_grown_session_adds_its_new_turn_and_keeps_the_old(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        session = live.store / "shop" / "s-live.jsonl"
        write_lines(session, a_turn(1, "aardvark"))
        assert wait_for(lambda: found(live.index, "aardvark"), 5) is not None
        last = write_lines(session, a_turn(2, "badger"))
        assert live.searchable_within("badger", last)
        grown = [done for done in live.said if done.path == session][-1]
        assert (grown.new, grown.updated) == (1, 0)
        assert live.index.count() == 3  # probe, aardvark, badger: nothing twice


def test_a_rotated_file_renamed_away_and_a_new_one_in_its_place(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        session = live.store / "shop" / "s-live.jsonl"
        write_lines(session, a_turn(1, "aardvark"))
        assert wait_for(lambda: found(live.index, "aardvark"), 5) is not None
        session.rename(session.with_name("s-live.jsonl.1"))
        last = write_lines(session, [prompt("u9", "How does the narwhal checkout work?", "s-new")])
        assert live.searchable_within("narwhal", last)
        assert found(live.index, "aardvark")
        # and renamed to a name the store lists, it is the same session: nothing new
        session.rename(session.with_name("s-old.jsonl"))
        time.sleep(1.0)
        assert live.index.count() == 3


def test_a_truncated_file_is_read_again(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        session = live.store / "shop" / "s-live.jsonl"
        write_lines(session, [*a_turn(1, "aardvark"), *a_turn(2, "badger")])
        assert wait_for(lambda: found(live.index, "badger"), 5) is not None
        session.write_text("")
        last = write_lines(session, a_turn(3, "ocelot"))
        assert live.searchable_within("ocelot", last)
        assert found(live.index, "aardvark")  # what was imported stays


def test_a_half_written_last_line_is_read_once_it_is_whole(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        session = live.store / "shop" / "s-live.jsonl"
        write_lines(session, a_turn(1, "aardvark"))
        line = json.dumps(prompt("u2", "How does the wombat checkout work?"))
        with session.open("a") as handle:
            handle.write(line[:30])
        time.sleep(1.0)
        assert not found(live.index, "wombat")
        with session.open("a") as handle:
            handle.write(line[30:] + "\n")
        assert live.searchable_within("wombat", time.monotonic())


def test_a_deleted_session_stops_nothing(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        doomed = live.store / "shop" / "doomed.jsonl"
        write_lines(doomed, a_turn(1, "aardvark"))
        assert wait_for(lambda: found(live.index, "aardvark"), 5) is not None
        doomed.unlink()
        (live.store / "shop").rmdir()
        last = write_lines(live.store / "web" / "s.jsonl", a_turn(2, "pangolin"))
        assert live.searchable_within("pangolin", last)


def test_polling_imports_a_session_written_line_by_line(tmp_path: Path) -> None:
    with watching(tmp_path, Settings(poll=True)) as live:
        last = write_lines(live.store / "shop" / "s.jsonl", [*a_turn(1, "aardvark")])
        assert live.searchable_within("aardvark", last)
        assert ("polling", "") not in live.noted


def test_without_the_watcher_library_it_polls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # as if it were not installed
    with watching(tmp_path) as live:
        last = write_lines(live.store / "shop" / "s.jsonl", a_turn(1, "aardvark"))
        assert live.searchable_within("aardvark", last)
        assert [event for event, _ in live.noted if event == "polling"] == ["polling"]


def test_a_store_that_appears_later_is_followed(tmp_path: Path) -> None:
    with watching(tmp_path, Settings(rescan_seconds=0.5), store=False) as live:
        assert wait_for(lambda: ("no store", "") in live.noted, 5) is not None
        write_lines(live.store / "shop" / "s.jsonl", a_turn(1, "aardvark"))
        assert wait_for(lambda: found(live.index, "aardvark"), 5) is not None
        last = write_lines(live.store / "shop" / "s.jsonl", a_turn(2, "badger"))
        assert live.searchable_within("badger", last)


def test_a_forgotten_session_stays_forgotten_as_it_grows(tmp_path: Path) -> None:
    with watching(tmp_path) as live:
        session = live.store / "shop" / "s-live.jsonl"
        write_lines(session, a_turn(1, "aardvark"))
        assert wait_for(lambda: found(live.index, "aardvark"), 5) is not None
        live.index.forget_session("s-live")
        write_lines(session, a_turn(2, "badger"))
        time.sleep(1.5)
        assert not found(live.index, "aardvark") and not found(live.index, "badger")


def test_a_named_file_is_followed_through_its_rotation(tmp_path: Path) -> None:
    session = tmp_path / "work" / "s-live.jsonl"
    write_lines(session, a_turn(1, "aardvark"))
    with watching(tmp_path, Settings(path=session), store=False) as live:
        assert wait_for(lambda: found(live.index, "aardvark"), 10) is not None
        time.sleep(1.2)  # the watcher is up
        last = write_lines(session, a_turn(2, "badger"))
        assert live.searchable_within("badger", last)
        session.rename(session.with_name("s-live.jsonl.1"))
        last = write_lines(session, [prompt("u9", "How does the narwhal checkout work?", "s-2")])
        assert live.searchable_within("narwhal", last)
        following_folder = ("following", str(session.parent))  # its folder, not the file
        assert wait_for(lambda: following_folder in live.noted, 10) is not None


def test_a_named_file_in_a_folder_too_broad_to_watch_is_followed_by_itself(
    tmp_path: Path,
) -> None:
    session = tmp_path / "home" / "s-live.jsonl"  # in the home folder itself
    write_lines(session, a_turn(1, "aardvark"))
    with watching(tmp_path, Settings(path=session), store=False) as live:
        assert wait_for(lambda: found(live.index, "aardvark"), 10) is not None
        # The first import can land before the watcher says what it follows.
        assert wait_for(lambda: ("following", str(session)) in live.noted, 10) is not None
        time.sleep(1.2)
        session.rename(session.with_name("s-live.jsonl.1"))
        last = write_lines(session, [prompt("u9", "How does the narwhal checkout work?", "s-2")])
        assert live.searchable_within("narwhal", last)


def test_the_home_and_the_current_folder_are_too_broad_to_follow(tmp_path: Path) -> None:
    assert too_broad(tmp_path, tmp_path)
    assert too_broad(tmp_path.parent, tmp_path)
    assert too_broad(Path.cwd(), tmp_path)
    assert not too_broad(tmp_path / ".claude" / "projects", tmp_path)


def test_a_path_that_does_not_exist_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = recall(capsys, "watch", str(tmp_path / "nowhere"))
    assert (code, out) == (2, "")
    assert err == f"recall watch: {tmp_path / 'nowhere'} does not exist\n"


# A real `recall watch` process.


def start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "RECALL_HOME": str(tmp_path / "index")}
    return subprocess.Popen(
        [sys.executable, "-m", "history.cli", "watch", *args],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def started(tmp_path: Path, process: subprocess.Popen[str]) -> HistoryIndex:
    """The process's index, once a first session written is found in it."""
    session = tmp_path / "home" / ".claude" / "projects" / "shop" / "s.jsonl"
    write_lines(session, a_turn(1, "aardvark"))
    index = HistoryIndex.open(tmp_path / "index" / "history.db")
    assert wait_for(lambda: found(index, "aardvark"), 15) is not None, process.poll()
    return index


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.timing_sensitive
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_idle_it_uses_under_one_percent_of_a_core(tmp_path: Path) -> None:
    process = start(tmp_path)
    try:
        started(tmp_path, process).close()
        time.sleep(1.0)
        before, at = cpu_seconds(process.pid), time.monotonic()
        time.sleep(5)  # 1% of it is 5 ticks of the kernel's 10 ms clock
        used = (cpu_seconds(process.pid) - before) / (time.monotonic() - at)
        assert used < 0.01, f"{used:.2%} of a core while idle"
    finally:
        process.kill()
        process.wait()


@pytest.mark.timing_sensitive
@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_sigterm_stops_it_with_0_and_ctrl_c_with_130_without_a_traceback(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    process = start(tmp_path)
    said: list[str] = []
    assert process.stderr is not None
    lines = process.stderr
    reader = threading.Thread(target=lambda: said.extend(lines), daemon=True)
    reader.start()
    started(tmp_path, process).close()
    # The signal comes once the session's import is over and said (the turn is in the index a
    # moment before its line is printed): Ctrl-C inside an import would stop it there.
    imported = "shop/s.jsonl: 1 new, 0 updated\n"
    assert wait_for(lambda: any(line.endswith(imported) for line in said), 15) is not None
    process.send_signal(sent)
    assert process.wait(timeout=15) == code, said
    reader.join(timeout=5)
    err = "".join(said)
    assert process.stdout is not None and process.stdout.read() == ""
    assert "Traceback" not in err
    assert ("recall watch: interrupted" in err) == (code == 130)


def test_quiet_says_nothing_of_the_sessions_it_imports(tmp_path: Path) -> None:
    process = start(tmp_path, "--quiet")
    started(tmp_path, process).close()
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=15)
    assert (process.returncode, out, err) == (0, "", "")


# recall watch --install / --uninstall, on fake homes: the service manager is never called.


def test_install_writes_a_systemd_user_unit_then_uninstall_removes_it(tmp_path: Path) -> None:
    places = Places(tmp_path, {}, "Linux")
    calls: list[list[str]] = []
    command = ["/opt/my tools/recall", "--home", "/data/100%/recall", "watch"]

    def runner(words: list[str]) -> int:
        calls.append(words)
        return 0

    installed = service.install(places, command, run=runner)
    unit = tmp_path / ".config" / "systemd" / "user" / "recall-watch.service"
    assert installed.file == unit and installed.ran
    text = unit.read_text()
    assert 'ExecStart="/opt/my tools/recall" --home /data/100%%/recall watch\n' in text
    assert "WantedBy=default.target" in text and "Restart=on-failure" in text
    assert unit.stat().st_mode & 0o777 == 0o600
    assert calls == [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", "recall-watch.service"],
    ]
    calls.clear()
    removed = service.uninstall(places, run=runner)
    assert removed is not None and not unit.exists()
    assert calls == [
        ["systemctl", "--user", "disable", "--now", "recall-watch.service"],
        ["systemctl", "--user", "daemon-reload"],
    ]
    assert service.uninstall(places, run=runner) is None


def test_install_writes_a_launchd_agent_on_macos(tmp_path: Path) -> None:
    places = Places(tmp_path, {}, "Darwin")
    calls: list[list[str]] = []

    def runner(words: list[str]) -> int:
        calls.append(words)
        return 0

    installed = service.install(places, ["/usr/local/bin/recall", "watch"], runner)
    plist = tmp_path / "Library" / "LaunchAgents" / f"{service.LABEL}.plist"
    assert installed.file == plist
    agent = plistlib.loads(plist.read_bytes())
    assert agent["Label"] == service.LABEL
    assert agent["ProgramArguments"] == ["/usr/local/bin/recall", "watch"]
    assert agent["RunAtLoad"] is True
    assert calls == [["launchctl", "load", "-w", str(plist)]]
    service.uninstall(places, runner)
    assert not plist.exists() and calls[-1] == ["launchctl", "unload", "-w", str(plist)]


def test_install_on_a_home_that_is_not_the_account_s_only_says_what_to_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr("platform.system", lambda: "Linux")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agents").mkdir()
    code, out, _ = recall(
        capsys, "--home", str(tmp_path / "idx"), "watch", "--install", "--poll", "agents"
    )
    unit = tmp_path / "config" / "systemd" / "user" / "recall-watch.service"
    assert code == 0
    assert out.splitlines() == [
        f"Wrote {unit}.",
        "To tell the service manager, run:",
        "    systemctl --user daemon-reload",
        "    systemctl --user enable --now recall-watch.service",
    ]
    exec_start = next(line for line in unit.read_text().splitlines() if line.startswith("ExecS"))
    assert exec_start.endswith(
        f"-m history.cli --home {tmp_path / 'idx'} watch --poll {tmp_path / 'agents'}"
    )
    code, out, _ = recall(capsys, "watch", "--uninstall")
    assert code == 0 and out.startswith(f"Removed {unit}.") and not unit.exists()
    code, out, _ = recall(capsys, "watch", "--uninstall")
    assert (code, out) == (1, "No recall watch service is installed.\n")


def test_help_loads_neither_the_watcher_nor_its_loop(tmp_path: Path) -> None:
    """`recall --help` registers every command: watch's costs nothing until it runs."""
    from tests.e2e.test_cold_start import loaded, under

    modules = loaded(tmp_path, "--help")
    assert "history.cli.watch" in modules
    assert under(modules, ("watchfiles", "history.watch")) == []

"""`recall watch`: from an agent's write to a searchable turn, idle CPU, and what re-reading a
grown 10 MB session costs.

    python -m bench.watch_latency [--writes 20] [--idle-seconds 30] [--modes notify,poll]

A real `recall watch` process follows a temporary home laid out as Claude Code's store. Each
write appends one turn to a session, line by line; latency is from the last line written to
the first search that finds it (searched every 10 ms from this process). Idle CPU is the
child's user + system time over `--idle-seconds` with nothing written (/proc/PID/stat). The
re-read cost is one import of a 10 MB session that just grew by one turn: what the watcher pays
per burst for that file (the run's incremental import by turn id writes only the new turn).
One JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from history import HistoryIndex
from history.importers import FORMATS
from history.importers.run import import_transcripts


def turn(n: int, word: str, session: str, answer: str = "It works.") -> list[dict[str, Any]]:
    return [
        {
            "type": "user",
            "uuid": f"u{n}",
            "sessionId": session,
            "cwd": "/home/dev/shop",
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "user", "content": f"How does the {word} checkout work?"},
        },
        {
            "type": "assistant",
            "uuid": f"a{n}",
            "sessionId": session,
            "message": {
                "id": f"m{n}",
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
            },
        },
    ]


def append(path: Path, lines: list[dict[str, Any]], pause: float = 0.02) -> float:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
            handle.flush()
            time.sleep(pause)
    return time.monotonic() - pause


def found(index: HistoryIndex, word: str) -> bool:
    return any(word in hit.asked for hit in index.search(word, k=3))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def one_mode(work: Path, mode: str, writes: int, idle_seconds: float) -> dict[str, Any]:
    home, store = work / mode / "home", work / mode / "home" / ".claude" / "projects"
    store.mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "RECALL_HOME": str(work / mode / "index")}
    extra = ["--poll"] if mode == "poll" else []
    child = subprocess.Popen(
        [sys.executable, "-m", "history.cli", "watch", "--quiet", *extra], env=env, cwd=work
    )
    try:
        session = store / "shop" / "s.jsonl"
        append(session, turn(0, "probe", "s"))
        index = HistoryIndex.open(work / mode / "index" / "history.db")
        while not found(index, "probe"):
            time.sleep(0.05)
        latencies = []
        for n in range(1, writes + 1):
            word = f"zebra{n:03d}x"
            last = append(session, turn(n, word, "s"))
            while not found(index, word):
                time.sleep(0.01)
            latencies.append(time.monotonic() - last)
            time.sleep(0.3)
        index.close()
        time.sleep(2.0)
        before, at = cpu_seconds(child.pid), time.monotonic()
        time.sleep(idle_seconds)
        idle = (cpu_seconds(child.pid) - before) / (time.monotonic() - at)
        latencies.sort()
        return {
            "latency_s": {
                "median": round(statistics.median(latencies), 3),
                "p95": round(latencies[max(0, round(0.95 * len(latencies)) - 1)], 3),
                "max": round(latencies[-1], 3),
            },
            "idle_cpu_share_of_a_core": round(idle, 5),
            "idle_seconds": idle_seconds,
            "peak_rss_mb": round(peak_rss_mb(child.pid), 1),
        }
    finally:
        child.terminate()
        child.wait(30)


def grown_file_cost(work: Path, megabytes: int = 10) -> dict[str, Any]:
    """One import of a `megabytes` session right after it grew by one turn."""
    session = work / "big" / "s.jsonl"
    answer = "The handler validates the cart, then charges the card. " * 30
    n = 0
    session.parent.mkdir(parents=True)
    with session.open("w", encoding="utf-8") as handle:
        while handle.tell() < megabytes * 1_000_000:
            n += 1
            for line in turn(n, f"word{n}", "big", answer):
                handle.write(json.dumps(line) + "\n")
    index = HistoryIndex.open(work / "big" / "history.db")
    claude = FORMATS["claude-code"]
    started = time.perf_counter()
    first = import_transcripts(index, [claude], session)
    first_s = time.perf_counter() - started
    append(session, turn(n + 1, "grown", "big"), pause=0)
    started = time.perf_counter()
    again = import_transcripts(index, [claude], session)
    again_s = time.perf_counter() - started
    index.close()
    return {
        "file_mb": round(session.stat().st_size / 1e6, 1),
        "turns": first.new,
        "first_import_s": round(first_s, 3),
        "grown_reimport_s": round(again_s, 3),
        "grown_reimport_new_turns": again.new,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--modes", default="notify,poll")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="watch-bench-") as folder:
        work = Path(folder)
        result: dict[str, Any] = {
            mode: one_mode(work, mode, options.writes, options.idle_seconds)
            for mode in options.modes.split(",")
        }
        result["grown_10mb_session"] = grown_file_cost(work)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

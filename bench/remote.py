"""What posting to a team's service costs: the hook's start-up, and `recall push`'s rate.

    python -m bench.remote [--rounds 15] [--push-turns 2000]

A real `recall serve` runs on a free loopback port over a fresh home. Each hook case runs as a
new process, alternated with `python -c pass`, and is reported as the median CPU of the child
(user + system) and its ratio to the yardstick: the local hook (the same finished turn into the
local history again), the hook to the service with nothing new to send, posting one new turn
(a fresh client home each round), and queueing it while the service is down. Then `recall push`
of `--push-turns` generated turns: wall time and turns a second for the first push, a second
push (the ledger: nothing posted), and `--again` (every turn posted, each "unchanged").
One JSON line a measurement on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bench.startup import cpu_of, transcript

PYTHON = sys.executable
RECALL = [PYTHON, "-m", "history.cli"]
LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+)")
KEY = "bench-key"


def serve(home: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_TOKEN": KEY}
    server = subprocess.Popen(
        [*RECALL, "serve", "--port", "0"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    for line in server.stderr:
        if found := LISTENING.search(line):
            # Its access log goes on: read it, or the service stops once the pipe is full.
            threading.Thread(target=server.stderr.read, daemon=True).start()
            return server, found[1]
    raise SystemExit(f"recall serve did not start: {server.wait()}")


def closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def hook_cases(
    work: Path, url: str
) -> dict[str, Callable[[int], tuple[list[str], dict[str, str]]]]:
    def env(home: Path) -> dict[str, str]:
        return {**os.environ, "RECALL_HOME": str(home), "RECALL_KEY": KEY}

    hook = [*RECALL, "hook", "claude-code"]
    down = closed_port()
    return {
        "hook local (turn seen before)": lambda n: (hook, env(work / "local")),
        "hook to service (nothing new)": lambda n: ([*hook, "--server", url], env(work / "seen")),
        "hook to service (one new turn)": lambda n: (
            [*hook, "--server", url],
            env(work / f"fresh-{n}"),
        ),
        "hook to service down (queued)": lambda n: (
            [*hook, "--server", down],
            env(work / f"down-{n}"),
        ),
    }


def measure_hooks(work: Path, url: str, rounds: int) -> None:
    _path, payload = transcript(work)
    for name, case in hook_cases(work, url).items():
        cpu_of(*case(-1), payload)  # a first run makes the home, the ledger, the index
        command, yardstick = [], []
        for n in range(rounds):
            argv, env = case(n)
            command.append(cpu_of(argv, env, payload)[0])
            yardstick.append(cpu_of([PYTHON, "-c", "pass"], env)[0])
        median, yard = statistics.median(command), statistics.median(yardstick)
        print(
            json.dumps(
                {
                    "command": name,
                    "cpu_ms": round(median * 1000, 1),
                    "yardstick_cpu_ms": round(yard * 1000, 1),
                    "ratio": round(median / yard, 2) if yard else None,
                    "rounds": rounds,
                }
            ),
            flush=True,
        )


def measure_push(work: Path, url: str, turns: int) -> None:
    from bench import corpus
    from history import HistoryIndex

    home = work / "pushing"
    index = HistoryIndex.open(home / "history.db")
    index.record_many([turn for _, turn in zip(range(turns), corpus.turns(), strict=False)])
    index.close()
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_KEY": KEY}
    for name, extra in (("first", []), ("again, ledger", []), ("again, --again", ["--again"])):
        started = time.perf_counter()
        done = subprocess.run(
            [*RECALL, "push", "--server", url, "--json", *extra],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        summary = json.loads(done.stdout)
        print(
            json.dumps(
                {
                    "command": f"push {name}",
                    "turns": summary["turns"],
                    "sent": summary["sent"],
                    "unchanged": summary["unchanged"],
                    "failed": summary["failed"],
                    "seconds": round(seconds, 2),
                    "turns_per_second": round(summary["turns"] / seconds),
                }
            ),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--push-turns", type=int, default=2_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="recall-bench-remote-") as folder:
        work = Path(folder)
        server, url = serve(work / "server")
        try:
            measure_hooks(work, url, args.rounds)
            measure_push(work, url, args.push_turns)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()

"""What a new `recall` process costs, beside its yardsticks, in one run.

    python -m bench.startup --turns 100000 [--rounds 15] [--home DIR] [--commands search,mcp]
    python -m bench.startup --turns 100000 --vectors --commands search,meaning,meaning-project

Each command runs as a new process, alternated with its yardstick (`python -c pass`, and
`python -c "import mcp.server"` for the MCP server), over an index of `--turns` generated turns
(built once in `--home`, kept for the next run). Reported as medians of CPU time (user + system
of the child, which a busy machine disturbs less than wall time) and as ratios, with the peak
RSS of each command and the share of its CPU spent importing (from `-X importtime`). One JSON
line a command on stdout.

`--vectors` (the `meaning` extra installed) gives every turn a synthetic vector under the
packaged model's id, so that `meaning` and `meaning-project` (`recall search --meaning`, every
project and one) load the model and read the vectors as a real search by meaning does; `search`
and `search-project` keep to the words (`--words-only`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

PYTHON = sys.executable
# The generated corpus's largest project (bench/world.py: one of 20, 11.8% of 100,000 turns).
PROJECT = ("--project", "/home/dev/proj-00")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
FIRST_SEARCH = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "recall_history", "arguments": {"query": "parser config"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


BUILD = """
import sys
from pathlib import Path
from bench.startup import build
build(Path(sys.argv[1]), int(sys.argv[2]))
"""


def build(home: Path, turns: int) -> None:
    """Run in a child process (see main): the bench's own process stays small, since a child's
    peak RSS counts what it shared with its parent before it started the command."""
    from bench import corpus
    from history import HistoryIndex

    database = home / "history.db"
    if database.exists():
        return
    index = HistoryIndex.open(database)
    batch = []
    for number, turn in enumerate(corpus.turns()):
        if number == turns:
            break
        batch.append(turn)
        if len(batch) == 10_000:
            index.record_many(batch)
            batch = []
    index.record_many(batch)
    index.tidy()
    index.close()


VECTORS = """
import sys
from pathlib import Path
from bench.startup import add_vectors
add_vectors(Path(sys.argv[1]))
"""


def add_vectors(home: Path) -> None:
    """A random unit vector (int8) for every turn without one, under the packaged model's id."""
    from sqlalchemy import create_engine

    from bench.meaning_cost import random_vectors
    from history.meaning.embedder import default_model_id

    engine = create_engine(f"sqlite:///{home / 'history.db'}")
    with engine.begin() as conn:
        random_vectors(conn, default_model_id())
    engine.dispose()


def transcript(home: Path) -> tuple[Path, str]:
    """A finished Claude Code turn and the Stop hook's payload that names it."""
    path = home / "hook-session.jsonl"
    lines = [
        {
            "type": "user",
            "sessionId": "bench-hook",
            "uuid": "u1",
            "cwd": str(home),
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "how should the login function hash passwords"},
        },
        {
            "type": "assistant",
            "sessionId": "bench-hook",
            "uuid": "a1",
            "timestamp": "2026-01-01T00:00:05Z",
            "message": {"id": "m1", "content": [{"type": "text", "text": "With argon2id."}]},
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    payload = {"transcript_path": str(path), "hook_event_name": "Stop", "session_id": "bench-hook"}
    return path, json.dumps(payload)


def cpu_of(
    argv: Sequence[str], env: dict[str, str], stdin: str = "", answer_id: int | None = None
) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of one child process (its own rusage, from wait4). With
    `answer_id`, stdin stays open until the JSON-RPC answer of that id is read (an MCP client
    waits for its answer before it goes)."""
    child = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE if answer_id is not None else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    assert child.stdin is not None
    child.stdin.write(stdin)
    child.stdin.flush()
    if answer_id is not None and child.stdout is not None:
        for line in child.stdout:
            if json.loads(line).get("id") == answer_id:
                break
    child.stdin.close()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def mcp_stdin() -> str:
    return "".join(json.dumps(m) + "\n" for m in (INITIALIZE, INITIALIZED, FIRST_SEARCH))


LOADED = """
import json, sys
from history.cli import main
try:
    main(sys.argv[2:])
finally:
    print(json.dumps(sorted(sys.modules)), file=open(sys.argv[1], "w"))
"""


IMPORTING = """
import importlib
for name in {modules!r}:
    try:
        importlib.import_module(name)
    except Exception:
        pass
"""


def import_share(argv: Sequence[str], env: dict[str, str], stdin: str, cpu: float) -> float:
    """The share of a command's CPU that importing its modules takes: the median CPU of a
    process that imports only the modules the command ended with, over the command's."""
    with tempfile.NamedTemporaryFile(suffix=".json") as listing:
        words = list(argv[3:])  # after PYTHON -m history.cli
        cpu_of([PYTHON, "-c", LOADED, listing.name, *words], env, stdin)
        modules = json.loads(Path(listing.name).read_text() or "[]")
    importing = IMPORTING.format(modules=modules)
    costs = [cpu_of([PYTHON, "-c", importing], env)[0] for _ in range(5)]
    return round(statistics.median(costs) / cpu, 3) if cpu else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument(
        "--commands", default="version,search,hook,mcp", help="which, comma-separated"
    )
    parser.add_argument("--vectors", action="store_true", help="a vector for every turn")
    args = parser.parse_args()
    home = args.home or Path(tempfile.gettempdir()) / f"recall-startup-{args.turns}"
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run([PYTHON, "-c", BUILD, str(home), str(args.turns)], check=True)
    if args.vectors:
        subprocess.run([PYTHON, "-c", VECTORS, str(home)], check=True)
    _path, hook_payload = transcript(home)
    env = {**os.environ, "RECALL_HOME": str(home)}
    recall = [PYTHON, "-m", "history.cli"]
    cases = {
        "version": ([*recall, "--version"], "", None, None),
        "search": (
            [*recall, "search", "parser config", "--everywhere", "--words-only"],
            "",
            None,
            None,
        ),
        "search-project": (
            [*recall, "search", "parser config", *PROJECT, "--words-only"],
            "",
            None,
            None,
        ),
        "meaning": (
            [*recall, "search", "parser config", "--everywhere", "--meaning"],
            "",
            None,
            None,
        ),
        "meaning-project": (
            [*recall, "search", "parser config", *PROJECT, "--meaning"],
            "",
            None,
            None,
        ),
        "hook": ([*recall, "hook", "claude-code"], hook_payload, None, None),
        "mcp": ([*recall, "mcp"], mcp_stdin(), [PYTHON, "-c", "import mcp.server"], 2),
    }
    yardstick = [PYTHON, "-c", "pass"]
    wanted = args.commands.split(",")
    for name, (argv, stdin, own_yardstick, answer_id) in cases.items():
        if name not in wanted:
            continue
        against = own_yardstick or yardstick
        command_cpu, yard_cpu, rss = [], [], []
        for _round in range(args.rounds):
            cpu, peak = cpu_of(argv, env, stdin, answer_id)
            command_cpu.append(cpu)
            rss.append(peak)
            yard_cpu.append(cpu_of(against, env)[0])
        median, yard = statistics.median(command_cpu), statistics.median(yard_cpu)
        print(
            json.dumps(
                {
                    "command": name,
                    "turns": args.turns,
                    "cpu_ms": round(median * 1000, 1),
                    "yardstick": " ".join(against[1:]),
                    "yardstick_cpu_ms": round(yard * 1000, 1),
                    "ratio": round(median / yard, 2) if yard else None,
                    "over_yardstick_ms": round((median - yard) * 1000, 1),
                    "peak_rss_mb": round(max(rss), 1),
                    # `recall mcp` ends its process at once, before a listing could be written.
                    "import_share": None
                    if name == "mcp"
                    else import_share(argv, env, stdin, median),
                    "rounds": args.rounds,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()

"""`recall blame` at N turns: a file's turns and a line's turn (with git), beside `git log -- PATH`.

N generated turns (bench.corpus) and, in a git repository built here, EDITS turns editing a few
known files with their work logs, a commit after each. Timed in process (the blame itself, not
the CLI's start-up), RUNS times each, p50 and p95 in ms.

    PYTHONPATH=. python -m bench.blame --turns 100000 [--keep DIR]

`--keep DIR` builds the database and the repository in DIR and leaves them there; a later run
with the same DIR (and --turns) measures them again without building.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import corpus
from bench.measure import percentile
from history import HistoryIndex, blame
from history.importers.whole import WorkLog

FILES = ("src/auth/login.py", "src/shop/cart.py", "README.md")
EDITS, RUNS, BATCH = 300, 50, 5_000


def _git(repo: Path, *args: str, when: datetime | None = None) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}
    if when is not None:
        env |= {"GIT_AUTHOR_DATE": f"@{int(when.timestamp())} +0000"}
        env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@b", *args],
        check=True,
        capture_output=True,
        env=env,
    )


def build(index: HistoryIndex, repo: Path, turns: int) -> None:
    generated = itertools.islice(corpus.turns(), turns)
    while batch := list(itertools.islice(generated, BATCH)):
        index.record_many(batch)
    _git(repo, "init", "-q")
    start = datetime.now(UTC) - timedelta(days=30)
    content = {name: [] for name in FILES}  # type: dict[str, list[str]]
    for n in range(EDITS):
        name = FILES[n % len(FILES)]
        when = start + timedelta(minutes=10 * n)
        added = [f"value_{n}_{i} = {n * i}" for i in range(3)]
        content[name] += added
        work = WorkLog()
        work.edit(name, added)
        index.record(
            turn_id=f"edit-{n}",
            session_id=f"s-{n // 10}",
            project=str(repo),
            asked=f"change {name} step {n}",
            answered="done",
            edited=[name],
            asked_at=when,
            work=work.text(),
        )
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(content[name]) + "\n")
        _git(repo, "add", name)
        _git(repo, "commit", "-q", "-m", f"step {n}", when=when + timedelta(minutes=5))


def timed(work: object, runs: int = RUNS) -> tuple[float, float]:
    spent = []
    for _ in range(runs):
        started = time.perf_counter()
        work()  # type: ignore[operator]
        spent.append((time.perf_counter() - started) * 1000)
    return percentile(spent, 50), percentile(spent, 95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build in DIR and keep; measure DIR again")
    args = parser.parse_args()
    with contextlib.ExitStack() as scratches:
        if args.keep is None:
            scratch = Path(scratches.enter_context(tempfile.TemporaryDirectory()))
        else:
            scratch = args.keep
            scratch.mkdir(parents=True, exist_ok=True)
        built = (scratch / "shop" / ".git").exists() and (scratch / "history.db").exists()
        index = HistoryIndex.open(scratch / "history.db")
        repo = scratch / "shop"
        if not built:
            repo.mkdir(exist_ok=True)
            build(index, repo, args.turns)
            index.tidy()
        elif index.count() != args.turns + EDITS:
            raise SystemExit(f"error: {scratch} holds {index.count():,} turns, not {args.turns:,}")
        login = str(repo / FILES[0])

        def file_blame() -> None:
            blame.file_turns(index, blame.find(index, login, repo))

        def line_blame() -> None:
            target = blame.find(index, login, repo)
            turns = blame.file_turns(index, target)
            blame.line_origins(target, turns, blame.current_lines(target, 40, 59), 40, False)

        def git_log() -> None:
            subprocess.run(["git", "-C", str(repo), "log", "--", FILES[0]], capture_output=True)

        for label, work in (
            ("file", file_blame),
            ("20 lines, git", line_blame),
            ("git log", git_log),
        ):
            p50, p95 = timed(work)
            print(f"{args.turns + EDITS} turns  {label:14} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms")
        index.close()


if __name__ == "__main__":
    main()

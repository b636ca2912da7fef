"""A work log for each turn of the search-quality sets: what the commit's diff removed and added,
as the importers log an agent's edits (history/importers/whole.py: `~ path`, then `- line`s and
`+ line`s, 40 of each an edit, 16,000 characters a turn), so the ranking with the work field
can be measured on text like an agent's, not only on turns whose work is empty.

    python -m bench.quality_work --mirrors DIR [--out bench/out/quality/work]

Writes `<out>/<set>.jsonl`, one `{"turn_id", "work"}` a line, for every set of
bench.quality_sets (datasette from simonw/datasette's mirror); the `recall_work` variant
(bench.quality_variants) reads it. One `git log -p` a repository, read as it streams.

The changelog and its fragments (NEWS.rst, news/, changelog.d/, CHANGES.rst, doc/changes/,
release announcements, ...) are left out of every work log: the queries are their sentences,
so a commit that edits them would be found by its own query's text, which no agent's turn has.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from bench.quality_sets import OUT, SETS, git_dir, set_dirs
from history.importers.whole import WorkLog

WORK_OUT = OUT / "work"
DATASETTE = "simonw/datasette"
CHANGELOG_FOLDERS = {"news", "changelog", "changelog.d", "changes", "announce", "whatsnew"}
CHANGELOG_NAMES = {"changelog", "changes", "news", "history", "release-notes", "releasenotes"}


def is_changelog(path: str) -> bool:
    *folders, name = path.lower().split("/")
    return bool(CHANGELOG_FOLDERS & set(folders)) or name.split(".")[0] in CHANGELOG_NAMES


def commit_work(repo: Path, rev: str) -> Iterator[tuple[str, str]]:
    """(sha, work log) of each non-merge commit reachable from `rev`."""
    command = ["git", "--git-dir", str(repo), "log", "-p", "-U0", "--no-color", "--no-renames"]
    command += ["--no-merges", "--format=%x00%H", rev]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, errors="replace") as git:
        assert git.stdout is not None
        sha, work, path = "", WorkLog(), ""
        added: list[str] = []
        removed: list[str] = []
        for line in git.stdout:
            line = line.rstrip("\n")
            if line.startswith("\0"):
                if path:
                    work.edit(path, added, removed)
                if sha:
                    yield sha, work.text()
                sha, work, path, added, removed = line[1:], WorkLog(), "", [], []
            elif line.startswith("+++ "):
                if path:
                    work.edit(path, added, removed)
                target = line[4:].split("\t")[0].removeprefix("b/")
                path = "" if target == "/dev/null" or is_changelog(target) else target
                added, removed = [], []
            elif line.startswith("+") and path:
                added.append(line[1:])
            elif line.startswith("-") and not line.startswith("--- ") and path:
                removed.append(line[1:])
        if path:
            work.edit(path, added, removed)
        if sha:
            yield sha, work.text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=WORK_OUT)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    sources = {name: [(s.repo, s.rev) for s in found] for name, found in SETS.items()}
    sources["datasette"] = [(DATASETTE, "HEAD")]
    dirs = set_dirs()
    for name, repos in sources.items():
        wanted = {
            json.loads(line)["turn_id"]
            for line in (dirs[name] / "turns.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        }
        written = 0
        with (args.out / f"{name}.jsonl").open("w", encoding="utf-8") as sink:
            for repo, rev in repos:
                for sha, work in commit_work(git_dir(args.mirrors, repo), rev):
                    if sha in wanted and work:
                        sink.write(json.dumps({"turn_id": sha, "work": work}) + "\n")
                        written += 1
        print(json.dumps({"set": name, "turns": len(wanted), "with_work": written}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Build a search-quality development set with `../shared/quality/build.py`, for changelogs it
does not read as they are.

    python -m bench.quality_build GIT_DIR CHANGELOG[,CHANGELOG...] PROJECT OUT_DIR
                                  [--rev REV] [--repo NAME] [--markdown]

The shared builder's functions do the work (commits to turns, items to queries); this adds:
- release headings that name the project or say "Release" first ("pytest 9.1.1 (2026-06-19)",
  "Release 9.1.0 (released Dec 31, 2025)"), which the shared builder skips;
- several changelog files read as one, globs allowed (Sphinx keeps old releases in
  doc/changes/*.rst);
- `--markdown`: a Markdown changelog (`## 1.2.0`, `- item ([#12](.../issues/12))`) rewritten
  to the reStructuredText the builder reads.
The derived sets are never committed: bench/RESULTS.md gives the commands that rebuild them.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# The shared benchmark sits beside the repository (`../shared/quality`), or where this says.
QUALITY_DIR = Path(
    os.environ.get("RECALL_QUALITY_DIR", Path(__file__).resolve().parents[2] / "shared" / "quality")
)
SHARED_BUILD = QUALITY_DIR / "build.py"
VERSION_HEADING = re.compile(
    r"^(?:(?:Version|Release|[\w.-]+)\s+)?v?(\d+(?:\.\d+)*(?:[a-z]+\d*)?)\b", re.IGNORECASE
)
MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
MD_LINK = re.compile(r"\[([^\]]*)\]\((\S+?)\)")
MD_CODE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
MD_REFERENCE = re.compile(r"\[(#\d+)\](?!\()")  # `[#12]`, its URL defined at the end
MD_DEFINITION = re.compile(r"^\s*\[[^\]]+\]:\s+\S+\s*$")
CREDIT = re.compile(r"\s*\b(?:Patch|Contributed|Reported) by\b.*$")


def shared_builder(path: Path = SHARED_BUILD) -> ModuleType:
    spec = importlib.util.spec_from_file_location("shared_quality_build", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"error: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.__dict__["VERSION_IN_HEADING"] = VERSION_HEADING
    return module


def markdown_to_rest(text: str) -> str:
    """Headings underlined, `[label](url)` as `label <url>`__, `code` as ``code``."""
    out: list[str] = []
    for line in text.splitlines():
        heading = MD_HEADING.match(line)
        if heading:
            title = MD_LINK.sub(r"\1", heading.group(2)).strip()
            rule = "=-~^"[min(len(heading.group(1)), 4) - 1]
            out += ["", title, rule * max(len(title), 3), ""]
            continue
        if MD_DEFINITION.match(line):
            continue
        line = MD_CODE.sub(r"``\1``", line)
        line = MD_LINK.sub(lambda m: f"`{m.group(1)} <{m.group(2)}>`__", line)
        out.append(MD_REFERENCE.sub(r"\1", line))
    return "\n".join(out)


def changelog_paths(build: ModuleType, git_dir: str, rev: str, patterns: list[str]) -> list[str]:
    """The paths, with any glob (`doc/changes/*.rst`) expanded in REV's tree."""
    tree = build.git(git_dir, "ls-tree", "-r", "--name-only", rev).splitlines()
    paths: list[str] = []
    for pattern in patterns:
        paths += sorted(fnmatch.filter(tree, pattern)) if "*" in pattern else [pattern]
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir")
    ap.add_argument("changelogs", help="changelog path(s) in the repository, comma-separated")
    ap.add_argument("project")
    ap.add_argument("out_dir")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--repo", help="GitHub repository name cited in links (default: PROJECT)")
    ap.add_argument("--markdown", action="store_true", help="the changelogs are Markdown")
    ap.add_argument("--shared-build", type=Path, default=SHARED_BUILD)
    args = ap.parse_args(argv)
    build = shared_builder(args.shared_build)
    repo = args.repo or args.project
    paths = changelog_paths(build, args.git_dir, args.rev, args.changelogs.split(","))
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    turns_path, queries_path = out / "turns.jsonl", out / "queries.jsonl"
    for written in (turns_path, queries_path):  # several projects may share a set, once each
        text = written.read_text(encoding="utf-8") if written.exists() else ""
        if f'"project": "{args.project}"' in text:
            print(f"error: project {args.project!r} is already in {written}", file=sys.stderr)
            return 2

    turns = build.read_turns(args.git_dir, args.rev, args.project)
    by_issue: dict[int, list[str]] = {}
    for turn in turns:
        if any(build.is_bookkeeping(turn, path) for path in paths):
            continue
        for n in build.issue_refs_in_message(f"{turn['asked']}\n{turn['answered']}", repo):
            by_issue.setdefault(n, []).append(str(turn["turn_id"]))

    cited: dict[str, tuple[str, str, str, set[int]]] = {}
    for path in paths:
        changelog = build.git(args.git_dir, "show", f"{args.rev}:{path}")
        if args.markdown:
            changelog = markdown_to_rest(changelog)
        for version, item in build.changelog_items(changelog):
            refs, text = build.refs_and_text(item, repo)
            text = CREDIT.sub("", text.lstrip(" :")).strip()  # "`#12`_: Fixed ... Patch by X"
            if refs and re.search(r"[^\W_]", text):
                cited.setdefault(text.lower(), (version, text, item, set()))[3].update(refs)
    queries: list[dict[str, Any]] = []
    for version, text, item, refs in cited.values():
        relevant = sorted({sha for n in refs for sha in by_issue.get(n, [])})
        if relevant:
            queries.append(
                {
                    "query_id": f"{args.project}:{version}:{len(queries)}",
                    "project": args.project,
                    "version": version,
                    "query": text,
                    "issues": sorted(refs),
                    "relevant": relevant,
                    "source": item,
                }
            )
    with turns_path.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(t, ensure_ascii=False) + "\n" for t in turns)
    with queries_path.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in queries)
    summary = {"project": args.project, "turns": len(turns), "items_citing_issues": len(cited)}
    print(json.dumps({**summary, "queries": len(queries), "out_dir": str(out)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

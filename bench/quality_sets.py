"""The search-quality development sets: which repositories, at which revision, which changelogs.

    python -m bench.quality_sets --mirrors DIR [--out bench/out/quality]

builds every set but datasette (shipped in ../shared/quality) from bare clones found as
`DIR/<owner>+<name>/repo` (how this machine's mirrors are laid out) or `DIR/<owner>/<name>.git`:

    git clone --bare https://github.com/pypa/pip DIR/pypa/pip.git

The sets are derived from other projects' public histories, so they are built here and never
committed (bench/out/ is ignored). None comes from simonw's or the pallets organisation's
repositories: the held-out sets are drawn from there.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.quality_build import QUALITY_DIR
from bench.quality_build import main as build

OUT = Path(__file__).resolve().parent / "out" / "quality"


@dataclass(frozen=True)
class Source:
    repo: str  # owner/name on GitHub
    rev: str
    changelogs: tuple[str, ...]
    project: str
    markdown: bool = False


# Each set is one index; the eval searches every project in it.
SETS: dict[str, tuple[Source, ...]] = {
    "pip": (Source("pypa/pip", "6d309205789d368b2749d93fd6193d584811efd5", ("NEWS.rst",), "pip"),),
    "pytest": (
        Source(
            "pytest-dev/pytest",
            "df87db7b0462fb764ef73fa00561adf8ad047572",
            ("doc/en/changelog.rst",),
            "pytest",
        ),
    ),
    "sphinx": (
        Source(
            "sphinx-doc/sphinx",
            "e44a40eb2f810558ccd9da1425421270ccb81351",
            ("CHANGES.rst", "doc/changes/[0-9]*.rst"),
            "sphinx",
        ),
    ),
    "tokio": (
        Source(
            "tokio-rs/tokio",
            "ea91b33ca57ff0581b38e735cc108f831bccbdaa",
            ("tokio/CHANGELOG.md", "tokio-util/CHANGELOG.md", "tokio-stream/CHANGELOG.md"),
            "tokio",
            markdown=True,
        ),
    ),
    # Two projects in one index, searched everywhere (as one of the held-out sets is).
    "urllib3+attrs": (
        Source(
            "urllib3/urllib3",
            "6a8536b6e1b0cbe69ae801337c599951e527ae29",
            ("CHANGES.rst",),
            "urllib3",
        ),
        Source(
            "python-attrs/attrs",
            "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32",
            ("CHANGELOG.md",),
            "attrs",
            markdown=True,
        ),
    ),
}


# Sets built after a choice was made on the six above, to see whether it holds on histories it
# was not chosen on (bench/RESULTS.md, "Search by meaning, fifth slice"). Not development sets:
# nothing is tuned on them.
CHECKS: dict[str, tuple[Source, ...]] = {
    "httpx": (
        Source(
            "encode/httpx",
            "ae1b9f66238f75ced3ced5e4485408435de10768",
            ("CHANGELOG.md",),
            "httpx",
            markdown=True,
        ),
    ),
    "black": (
        Source(
            "psf/black",
            "8947c48ef2077c3a301b03c1e814dc2e3f78436e",
            ("CHANGES.md",),
            "black",
            markdown=True,
        ),
    ),
}


def set_dirs(out: Path = OUT) -> dict[str, Path]:
    """Every development set's folder, datasette first."""
    return {"datasette": QUALITY_DIR / "datasette", **{name: out / name for name in SETS}}


def check_dirs(out: Path = OUT) -> dict[str, Path]:
    """The folders of the sets built to check a choice (CHECKS)."""
    return {name: out / name for name in CHECKS}


def git_dir(mirrors: Path, repo: str) -> Path:
    owner, name = repo.split("/")
    for candidate in (mirrors / f"{owner}+{name}" / "repo", mirrors / owner / f"{name}.git"):
        if candidate.exists():
            return candidate
    raise SystemExit(f"error: no clone of {repo} under {mirrors}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", action="append", choices=sorted(SETS | CHECKS))
    args = ap.parse_args(argv)
    every = SETS | CHECKS
    for name in args.only or every:
        target = args.out / name
        if target.exists():
            print(f"{target} exists: skipped (remove it to rebuild)", file=sys.stderr)
            continue
        for source in every[name]:
            where = git_dir(args.mirrors, source.repo)
            present = subprocess.run(
                ["git", "--git-dir", str(where), "cat-file", "-e", f"{source.rev}^{{commit}}"],
                check=False,
            )
            if present.returncode:
                raise SystemExit(f"error: {where} lacks revision {source.rev}: fetch it first")
            argv_build = [str(where), ",".join(source.changelogs), source.project, str(target)]
            argv_build += ["--rev", source.rev, "--repo", source.repo.split("/")[1]]
            if build(argv_build + (["--markdown"] if source.markdown else [])):
                return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

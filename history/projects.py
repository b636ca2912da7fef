"""The stored key of a project: its workspace path, expanded, resolved and absolute."""

from __future__ import annotations

import functools
import os
from pathlib import Path


def project_key(path: str | os.PathLike[str]) -> str:
    """`~/proj`, `/home/u/proj/` and `/home/u/proj` are one project."""
    raw = os.fspath(path).strip()
    if not raw:
        raise ValueError("a project is a workspace path; got an empty string")
    return _resolved(raw, os.environ.get("HOME", ""), os.getcwd())


@functools.lru_cache(maxsize=4096)
def _resolved(raw: str, home: str, cwd: str) -> str:
    # Resolving asks the filesystem; an import resolves the same few projects over and over.
    return str(Path(raw).expanduser().resolve())

"""A git repository of a shop's code, and the turns that edit it, for the blame tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from history import HistoryIndex
from history.importers.whole import WorkLog

NOW = datetime.now(UTC).replace(microsecond=0)


LOGIN = "src/auth/login.py"


def at(hours: float) -> datetime:
    return NOW - timedelta(hours=hours)


def git(repo: Path, *args: str, when: datetime | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if when is not None:
        stamp = f"@{int(when.timestamp())} +0000"
        env |= {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def commit(repo: Path, files: dict[str, str], when: datetime, message: str) -> None:
    for name, content in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(content)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message, when=when)


def edit(
    index: HistoryIndex,
    turn_id: str,
    repo: Path,
    added: Sequence[str],
    hours: float,
    asked: str,
    session: str | None = None,
    removed: Sequence[str] = (),
) -> None:
    work = WorkLog()
    work.ran("pytest -q")
    work.edit(LOGIN, list(added), list(removed))
    assert index.record(
        turn_id=turn_id,
        session_id=session or f"conv-{turn_id}",
        project=str(repo),
        asked=asked,
        answered=f"done {turn_id}",
        files=[LOGIN],
        edited=[LOGIN],
        asked_at=at(hours),
        work=work.text(),
    )

"""The repository the blame and file tests share (tests/helpers/git_repo.py builds its parts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from history import HistoryIndex
from history.importers.whole import WorkLog
from tests.helpers.git_repo import LOGIN, at, commit, edit, git


@pytest.fixture
def shop(tmp_path: Path, index: HistoryIndex) -> Path:
    """`shop`: a human's first line (before any turn), a turn t1 writing login, t2 rewriting it
    (its work holds one line of the two it wrote), a human's line after; a turn that only read
    the file; another project's turn that edited another login.py."""
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, {LOGIN: "# shop auth\n"}, at(5), "start")
    edit(index, "t1", repo, ["def login(user):", "    return check(user)"], 3, "Add login\nplease")
    commit(repo, {LOGIN: "# shop auth\ndef login(user):\n    return check(user)\n"}, at(2.9), "1")
    strict = "    return check(user, strict=True)"
    was = ["    return check(user)"]
    edit(index, "t2", repo, ["def login(user):", strict], 2, "Make login strict", removed=was)
    two = f"# shop auth\ndef login(user):\n{strict}\nLOGIN_TIMEOUT = 30\n"
    commit(repo, {LOGIN: two}, at(1.9), "2")
    commit(repo, {LOGIN: two + "DEBUG = False\n"}, at(1), "3")
    assert index.record(
        turn_id="r1",
        session_id="conv-r1",
        project=str(repo),
        asked="Explain login",
        answered="it checks",
        files=[LOGIN],
        asked_at=at(0.5),
    )
    elsewhere = WorkLog()
    elsewhere.edit(LOGIN, ["def login(user):"])
    assert index.record(
        turn_id="other",
        session_id="conv-other",
        project=str(tmp_path / "blog"),
        asked="blog login",
        answered="ok",
        edited=[LOGIN],
        asked_at=at(0.2),
        work=elsewhere.text(),
    )
    return repo

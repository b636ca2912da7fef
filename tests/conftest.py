from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from history import HistoryIndex
from history.store.sqlite import fts

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def index(tmp_path: Path) -> Iterator[HistoryIndex]:
    opened = HistoryIndex.open(tmp_path / "history.db")
    yield opened
    opened.close()


@pytest.fixture(params=["fts5", "like"])
def any_index(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HistoryIndex]:
    """An index on each search path: FTS5, and the LIKE fallback of an SQLite without it."""
    if request.param == "like":
        monkeypatch.setattr(fts, "fts5_available", lambda conn: False)
    opened = HistoryIndex.open(tmp_path / "history.db")
    assert opened.full_text is (request.param == "fts5")
    yield opened
    opened.close()


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No test may touch the user's real ~/.recall.
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "recall-home"))


@pytest.fixture
def project(tmp_path: Path) -> str:
    """A workspace folder that exists, for the tools' project."""
    (tmp_path / "proj").mkdir()
    return str(tmp_path / "proj")


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC+05:30 (a POSIX TZ string: no tz database needed)."""
    monkeypatch.setenv("TZ", "XST-5:30")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()

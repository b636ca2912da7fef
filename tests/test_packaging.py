"""The distributions carry every package of history/ and the migrations."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_folder_of_history_is_a_listed_package() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "history").rglob("*.py")
    }
    assert folders <= listed
    assert {"history._migrations", "history._migrations.versions"} <= listed

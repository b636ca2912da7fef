"""The distributions carry every package of history/, the migrations and the page's files."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import PurePosixPath

from tests.helpers.paths import ROOT


def test_every_folder_of_history_is_a_listed_package() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "history").rglob("*.py")
    }
    assert folders <= listed
    assert {"history._migrations", "history._migrations.versions"} <= listed


def test_the_wheel_carries_every_compiled_catalogue() -> None:
    """history/i18n.py reads the .mo at run time: a language left out of the wheel would fall
    back to English in an installed recall without a word."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = data["package-data"]["history"]
    compiled = [path.relative_to(ROOT / "history") for path in ROOT.glob("history/locale/**/*.mo")]
    assert len(compiled) >= 18
    for path in compiled:
        assert any(fnmatch(str(path), pattern) for pattern in patterns), path


def test_the_page_s_static_files_are_package_data() -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["history.web"]
    static = ROOT / "history" / "web"
    files = [
        str(path.relative_to(static)) for path in (static / "static").rglob("*") if path.is_file()
    ]
    assert {"static/index.html", "static/app.js", "static/app.css"} <= set(files)
    assert {"static/vendor/marked.umd.js", "static/vendor/purify.min.js"} <= set(files)
    assert {"static/vendor/marked.LICENSE", "static/vendor/dompurify.LICENSE"} <= set(files)
    assert all(any(_glob_matches(name, pattern) for pattern in patterns) for name in files)


def _glob_matches(name: str, pattern: str) -> bool:
    """As setuptools' package-data globs match: a `*` never crosses a `/` (so `static/*` does not
    carry `static/vendor/`)."""
    names, patterns = PurePosixPath(name).parts, PurePosixPath(pattern).parts
    return len(names) == len(patterns) and all(map(fnmatch, names, patterns))

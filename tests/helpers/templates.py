"""SQLite databases at head without migrating each one: a file migrated once per test process
(per xdist worker), copied where a test wants a new database. Migrating costs ~0.2 s; a copy
~2 ms, which matters where hypothesis opens a database per example."""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from history import HistoryIndex
from history.store.sqlite import fts

_templates: dict[bool, Path] = {}


def _folder(prefix: str) -> Path:
    """A new temporary folder, removed when this test process ends (each process of a run makes
    its own: they were left behind, a few a run)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _template(full_text: bool) -> Path:
    if full_text not in _templates:
        folder = _folder("recall-template-")
        path = folder / "history.db"
        with pytest.MonkeyPatch.context() as patch:
            if not full_text:
                patch.setattr(fts, "fts5_available", lambda conn: False)
            HistoryIndex.open(path).close()
        _templates[full_text] = path
    return _templates[full_text]


def migrated_copy(path: Path, *, full_text: bool = True) -> Path:
    """`path` becomes a new, empty database at head (the LIKE fallback's without full text),
    its folder made if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template(full_text), path)
    return path


def new_index(path: Path) -> HistoryIndex:
    """A new index at `path`, opened: what a first `HistoryIndex.open` makes there, copied
    rather than migrated (for the tests that do not test the making)."""
    return HistoryIndex.open(migrated_copy(path))


_built: dict[str, Path] = {}


def built_copy(path: Path, key: str, build: Callable[[HistoryIndex], None]) -> HistoryIndex:
    """`path` opened as a copy of a database that `build` filled once per test process (under
    `key`): a module's tests share their corpus without recording it again for each test. The
    copy is the file as `build` left it, taken before closing (closing runs the upkeep due)."""
    if key not in _built:
        folder = _folder("recall-built-")
        filling = HistoryIndex.open(migrated_copy(folder / "filling.db"))
        build(filling)
        assert not (folder / "filling.id-key").exists()  # no id is masked: the copy needs no key
        with (
            closing(sqlite3.connect(folder / "filling.db")) as source,
            closing(sqlite3.connect(folder / "history.db")) as copy,
        ):
            source.backup(copy)
        filling.close()
        _built[key] = folder / "history.db"
    shutil.copyfile(_built[key], path)
    return HistoryIndex.open(path)


_filled: dict[str, Path] = {}


def filled_copy(path: Path, key: str, fill: Callable[[Path], None]) -> Path:
    """`path` becomes a copy of the file `fill` wrote and closed, once per test process (under
    `key`)."""
    if key not in _filled:
        source = _folder("recall-filled-") / path.name
        fill(source)
        assert not Path(f"{source}-wal").exists() or not Path(f"{source}-wal").stat().st_size
        _filled[key] = source
    shutil.copyfile(_filled[key], path)
    return path

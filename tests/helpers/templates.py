"""SQLite databases at head without migrating each one: a file migrated once per test process
(per xdist worker), copied where a test wants a new database. Migrating costs ~0.2 s; a copy
~2 ms, which matters where hypothesis opens a database per example."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from history import HistoryIndex
from history.store.sqlite import fts

_templates: dict[bool, Path] = {}


def _template(full_text: bool) -> Path:
    if full_text not in _templates:
        folder = Path(tempfile.mkdtemp(prefix="recall-template-"))
        path = folder / "history.db"
        with pytest.MonkeyPatch.context() as patch:
            if not full_text:
                patch.setattr(fts, "fts5_available", lambda conn: False)
            HistoryIndex.open(path).close()
        _templates[full_text] = path
    return _templates[full_text]


def migrated_copy(path: Path, *, full_text: bool = True) -> Path:
    """`path` becomes a new, empty database at head (the LIKE fallback's without full text)."""
    shutil.copyfile(_template(full_text), path)
    return path

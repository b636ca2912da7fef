"""The suite's own SQLite templates (tests/helpers/templates.py) leave no folder behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT

MAKES_EVERY_KIND = """
import sys
from pathlib import Path
from tests.helpers import templates

here = Path(sys.argv[1])
templates.migrated_copy(here / "a.db")
templates.built_copy(here / "b.db", "key", lambda index: None).close()
templates.filled_copy(here / "c.db", "key", lambda path: path.write_bytes(b""))
print(*(path.parent for path in (*templates._templates.values(), *templates._built.values(),
                                 *templates._filled.values())))
"""


def test_a_test_process_removes_its_template_folders_when_it_ends(tmp_path: Path) -> None:
    """Regression: each test process left its template folders in the temporary directory, a
    few a run."""
    done = subprocess.run(
        [sys.executable, "-c", MAKES_EVERY_KIND, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    folders = [Path(name) for name in done.stdout.split()]
    assert len(folders) == 3
    assert not [folder for folder in folders if folder.exists()]

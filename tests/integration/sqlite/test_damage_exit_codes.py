"""Damage is told by the exit code too: `recall stats` and `recall doctor --check-only` say a
file has damaged pages and exit 1 even when the counts can still be read, and `recall import`
exits 3 when it read turns but the damaged file let it record none.

Real files, damaged for real: pages overwritten with random bytes
(tests/integration/sqlite/test_damaged_files.py fills the home)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from history.store.sqlite import engine as sqlite_db
from tests.helpers.damage import filled_home, run
from tests.helpers.paths import IMPORTERS

TRANSCRIPTS = IMPORTERS


def damage(db: Path, table: str, every_page: bool = False) -> None:
    """Overwrite one middle leaf of `table` (or every page of it) with random bytes."""
    conn = sqlite_db.sqlite_driver().connect(str(db))
    pages = [
        page
        for (page,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype != 'overflow' ORDER BY pageno",
            (table,),
        )
    ]
    conn.close()
    with db.open("r+b") as file:
        for page in pages if every_page else [pages[len(pages) // 2]]:
            file.seek((page - 1) * 4096)
            file.write(os.urandom(4096))


@pytest.mark.parametrize("table", ["turns", "turns_fts_data"])
def test_stats_on_a_file_with_damaged_pages_says_so_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    # Regression: the counts read only an index, so stats said "turns: 300" and exited 0.
    damage(filled_home(tmp_path), table)
    code, out, err = run(tmp_path, capsys, "stats")
    assert code == 1, out + err
    if table == "turns_fts_data":  # the turns themselves are readable: their count is shown
        assert re.search(r"turns:\s+\d+ in ", out), out
    assert "is damaged" in err and "`recall doctor --recover`" in err
    code, out, err = run(tmp_path, capsys, "stats", "--json")
    if table == "turns_fts_data":
        assert code == 1 and json.loads(out)["damaged_pages"], out
    else:  # the counts themselves cannot be read: the sentence says so
        assert code == 1 and "is damaged" in err, out + err
    code, out, err = run(tmp_path, capsys, "doctor", "--check-only")
    assert code == 1 and "The database file is damaged" in out, out


def test_stats_on_a_sound_file_reports_no_damage_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled_home(tmp_path)
    code, out, err = run(tmp_path, capsys, "stats", "--json")
    assert code == 0 and json.loads(out)["damaged_pages"] == [] and json.loads(out)["turns"]
    code, out, err = run(tmp_path, capsys, "stats")
    assert code == 0 and "damaged" not in out + err


def test_import_into_a_damaged_file_that_records_nothing_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: every turn failed to be written and import still exited 0.
    damage(filled_home(tmp_path), "turns_fts_data", every_page=True)
    for extra in ([], ["--json"]):
        code, out, err = run(tmp_path, capsys, "import", "claude-code", str(TRANSCRIPTS), *extra)
        assert code == 3, out + err
        sentence = "recall import: turns were read but none could be recorded"
        assert [line for line in err.splitlines() if line.startswith(sentence)], err
        assert "`recall doctor --check-only`" in err
    code, out, err = run(tmp_path, capsys, "stats")
    assert code == 1 and re.search(r"turns:\s+\d+ in ", out)  # stats still reads the rest


def test_import_into_a_sound_file_exits_0_and_again_still_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled_home(tmp_path)
    for _ in range(2):  # the second time every turn is unchanged: recorded, not failed
        code, out, err = run(tmp_path, capsys, "import", "claude-code", str(TRANSCRIPTS))
        assert code == 0 and "none could be recorded" not in err, out + err

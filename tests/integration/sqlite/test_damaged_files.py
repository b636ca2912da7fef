"""A damaged history file never crashes a command: doctor and stats say so in words, doctor
recovers what can be read into a new file and keeps the damaged one, and every damaged copy in
the home is named by stats, doctor and forget until `recall doctor --delete-damaged` removes it.

Real files, damaged for real: pages of a checkpointed file overwritten with random bytes."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.cli import main
from history.store.sqlite import engine as sqlite_db
from tests.helpers.damage import CANARY, CUT_SHORT, FORGOTTEN, TURNS, filled_home, run
from tests.helpers.loopback import LOOPBACK


def damage_pages(db: Path) -> list[int]:
    """Overwrite a middle leaf of `turns`, of each of its indexes and of the full-text index."""
    driver = sqlite_db.sqlite_driver()
    conn = driver.connect(str(db))
    leaves: dict[str, list[int]] = {}
    for name, page in conn.execute(
        "SELECT name, pageno FROM dbstat WHERE pagetype = 'leaf' ORDER BY pageno"
    ):
        leaves.setdefault(name, []).append(page)
    conn.close()
    wanted = ["turns", "turns_fts_data"] + [name for name in leaves if name.startswith("ix_turns")]
    pages = [leaves[name][len(leaves[name]) // 2] for name in wanted]
    size = 4096
    with db.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(os.urandom(size))
    return pages


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_damaged_pages_are_told_in_words_and_recovered_into_a_new_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = filled_home(tmp_path)
    assert len(damage_pages(db)) >= 4
    damaged = sha(db)

    for check in (["doctor", "--check-only"], ["doctor"]):
        code, out, err = run(tmp_path, capsys, *check)
        assert code == 1 and "The database file is damaged" in out and "--recover" in out, out
    code, out, err = run(tmp_path, capsys, "stats")
    assert code == 1 and "is damaged" in err and "--recover" in err
    code, out, err = run(tmp_path, capsys, "search", "login", "--everywhere")
    assert code in (0, 3)  # what can be read is found; otherwise one sentence
    assert sha(db) == damaged  # checking wrote nothing into the damaged file

    code, out, err = run(tmp_path, capsys, "doctor", "--recover")
    assert code == 0 and "Recovered" in out, out + err
    recovered = int(out.split("Recovered ")[1].split(" ")[0].replace(",", ""))
    assert TURNS // 2 < recovered < TURNS  # most turns back; those on the damaged pages lost
    assert "could not be read" in out
    (kept,) = tmp_path.glob("history.db.corrupt-*[0-9]Z")
    assert sha(kept) == damaged and f"kept as {kept.name}" in out

    code, out, err = run(tmp_path, capsys, "doctor", "--check-only")
    assert code == 0 and "sound" in out and "agrees" in out and "1 damaged copy" in out
    code, out, err = run(tmp_path, capsys, "stats")
    assert code == 0 and f"{recovered} in " in out and "1 damaged copy" in out
    index = HistoryIndex.open(db)
    assert index.count() == recovered and index.search("login", project="/p")
    assert index.forgotten([FORGOTTEN, CUT_SHORT]) == {FORGOTTEN, CUT_SHORT}  # tombstones came
    assert index.conversation(CUT_SHORT) == []  # and what a forget had left to delete did not
    index.close()


def test_a_damaged_copy_is_named_until_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = filled_home(tmp_path)
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(db.stat().st_size - 16))
    code, out, err = run(tmp_path, capsys, "stats")  # opening moves it aside
    assert code == 0 and re.search(r"^turns: +0\b", out, re.M)
    (copy,) = tmp_path.glob("history.db.corrupt-*[0-9]Z")
    assert f"1 damaged copy in the home may still hold forgotten or lost turns ({copy.name})" in out

    note = (
        "1 damaged copy in the home may still hold this conversation: "
        "`recall doctor --delete-damaged` removes it"
    )
    code, out, err = run(tmp_path, capsys, "forget", "--session", "s-3", "--yes")
    assert code == 1 and note in err
    code, out, err = run(tmp_path, capsys, "forget", "--project", "/p", "--yes")
    assert code == 1 and "may still hold this project" in err
    code, out, err = run(tmp_path, capsys, "doctor", "--check-only")
    assert code == 0 and copy.name in out and "--delete-damaged" in out

    code, out, err = run(tmp_path, capsys, "doctor", "--delete-damaged")
    assert code == 0 and "Deleted 1 damaged copy" in out and "not overwritten" in out
    assert not list(tmp_path.glob("history.db.corrupt-*"))
    code, out, err = run(tmp_path, capsys, "forget", "--session", "s-3", "--yes")
    assert "damaged" not in err
    code, out, err = run(tmp_path, capsys, "doctor", "--delete-damaged")
    assert code == 0 and "no damaged copy" in out


def test_a_moved_aside_copy_that_held_a_canary_is_gone_after_delete_damaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = filled_home(tmp_path)
    data = bytearray(db.read_bytes())
    data[100:4096] = os.urandom(3996)  # the schema page: opening moves the file aside
    db.write_bytes(bytes(data))
    assert CANARY.encode() in db.read_bytes()
    HistoryIndex.open(db).close()
    held = [path for path in tmp_path.iterdir() if CANARY.encode() in path.read_bytes()]
    assert [path.name for path in held] == [next(tmp_path.glob("history.db.corrupt-*")).name]

    assert run(tmp_path, capsys, "doctor", "--delete-damaged")[0] == 0
    assert not [path for path in tmp_path.iterdir() if CANARY.encode() in path.read_bytes()]


def test_the_service_says_how_many_damaged_copies_a_forget_left_behind(tmp_path: Path) -> None:
    db = filled_home(tmp_path)
    db.write_bytes(b"not a database\n" * 100)
    index = HistoryIndex.open(db)  # moved aside, a fresh file
    try:
        client = TestClient(create_app(index), base_url=LOOPBACK)
        turn = {"turn_id": "t", "session_id": "s-3", "project": "/p", "asked": "a", "answered": "b"}
        assert client.post("/api/code/turns", json=turn).status_code == 201
        gone = client.delete("/api/code/sessions/s-3")
        assert gone.json() == {"ok": True, "deleted": 1, "forgotten": 1, "damaged_copies": 1}
        assert main(["--home", str(tmp_path), "doctor", "--delete-damaged"]) == 0
        assert client.post("/api/code/turns", json=turn).status_code == 201
        gone = client.delete("/api/code/projects", params={"project": "/p"})
        assert gone.json() == {"ok": True, "deleted": 1, "forgotten": 1}  # none left to name
    finally:
        index.close()

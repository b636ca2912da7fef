"""A home whose files are damaged for real, and recall run over it in a process."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from history import HistoryIndex
from history.cli import main
from history.importers.base import ImportedTurn
from history.store.sqlite import engine as sqlite_db

TURNS = 300


CANARY = "canary-kestrel-5521"


FORGOTTEN = "s-forgotten"


CUT_SHORT = "s-7"


def filled_home(home: Path) -> Path:
    db = home / "history.db"
    index = HistoryIndex.open(db)
    turns = (
        ImportedTurn(
            turn_id=f"t-{n}",
            session_id=f"s-{n % 10}",
            project="/p",
            asked=f"login flow {n} {CANARY if n % 10 == 3 else ''} " + "word " * 40,
            answered="answer " * 60,
            files=("src/a.py",),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=datetime.now(UTC),
        )
        for n in range(TURNS)
    )
    assert index.record_many(turns).new == TURNS
    assert index.record(
        turn_id="t-f", session_id=FORGOTTEN, project="/p", asked="login", answered="gone"
    )
    assert index.forget_session(FORGOTTEN) == 1
    index.close()
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(db))
    with engine.begin() as conn:  # a large forget cut short after its tombstone: rows remain
        conn.exec_driver_sql(
            "INSERT INTO forgotten_sessions VALUES (?, '2026-01-01 00:00:00')", (CUT_SHORT,)
        )
        conn.exec_driver_sql(
            "INSERT INTO forget_work (session_id, project, owed_at) "
            "VALUES (?, NULL, '2026-01-01 00:00:00')",
            (CUT_SHORT,),
        )
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return db


def run(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err

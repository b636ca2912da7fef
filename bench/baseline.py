"""The floor: raw `sqlite3` with the project's table shape, FTS5 setup and naive query.

Same `turns` table and indexes, the same external-content `turns_fts(asked, answered, files)`
(and `work`, for a mix whose turns carry a work log) with the same triggers and tokenizer, WAL
with `synchronous = NORMAL` (as the project sets).
Nothing else: no redaction, no ORM, no upsert, no tombstones, a forget is a plain DELETE.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.corpus import GeneratedTurn

TOKENIZE = "porter unicode61 remove_diacritics 2"  # as recall's index (migration 0006)
WEIGHTS = (3.0, 1.0, 1.0)
WORK_WEIGHT = 0.5  # the work column's, as recall's rank weighs it (bench.phases)
RANK = f"bm25({', '.join(str(w) for w in WEIGHTS)})"  # FTS5's rank function, as configured
COLUMNS = "turn_id, session_id, project, asked_at, tainted, asked, answered, files, edited, tools"
INDEXED = ("asked", "answered", "files")


def _schema(work: bool) -> tuple[str, ...]:
    """The tables, indexes and triggers; with `work`, a `work` column beside the others, in the
    full-text index too (a mix whose turns carry a work log: bench.work_mix)."""
    indexed = ", ".join([*INDEXED, "work"] if work else INDEXED)
    old = ", ".join(f"old.{name}" for name in indexed.split(", "))
    new = ", ".join(f"new.{name}" for name in indexed.split(", "))
    delete = f"INSERT INTO turns_fts(turns_fts, rowid, {indexed}) VALUES ('delete', old.id, {old});"
    insert = f"INSERT INTO turns_fts(rowid, {indexed}) VALUES (new.id, {new});"
    return (
        f"""CREATE TABLE turns (
        id INTEGER NOT NULL PRIMARY KEY, turn_id VARCHAR NOT NULL UNIQUE,
        session_id VARCHAR NOT NULL, project VARCHAR NOT NULL, asked_at DATETIME NOT NULL,
        tainted BOOLEAN NOT NULL, asked TEXT NOT NULL, answered TEXT NOT NULL,
        files TEXT NOT NULL, edited TEXT NOT NULL, tools TEXT NOT NULL
        {", work TEXT NOT NULL" if work else ""})""",
        "CREATE INDEX ix_turns_session_id ON turns (session_id)",
        "CREATE INDEX ix_turns_project_asked_at ON turns (project, asked_at)",
        "CREATE INDEX ix_turns_asked_at ON turns (asked_at)",
        f"CREATE VIRTUAL TABLE turns_fts USING fts5({indexed}, "
        f"content='turns', content_rowid='id', tokenize='{TOKENIZE}')",
        f"CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN {insert} END",
        f"CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN {delete} END",
        f"CREATE TRIGGER turns_au AFTER UPDATE OF {indexed} ON turns BEGIN {delete} {insert} END",
    )


_ROW = ", ".join(f"t.{name}" for name in COLUMNS.split(", "))
_RANKED = "t.id, t.asked_at, t.turn_id"


def driver(name: str) -> ModuleType:
    """`sqlite3` (the standard library's) or `sqlean` (the SQLite build the project uses)."""
    return importlib.import_module("sqlean.dbapi2") if name == "sqlean" else sqlite3


def stored_time(when: datetime) -> str:
    """`asked_at` as SQLAlchemy stores a naive UTC DateTime on SQLite: sortable text."""
    return when.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def row(turn: GeneratedTurn) -> tuple[Any, ...]:
    """The columns of COLUMNS, without `work`."""
    return (
        turn.turn_id,
        turn.session_id,
        turn.project,
        stored_time(turn.asked_at),
        turn.tainted,
        turn.asked,
        turn.answered,
        json.dumps(list(turn.files), ensure_ascii=False),
        json.dumps(list(turn.edited), ensure_ascii=False),
        json.dumps(list(turn.tools), ensure_ascii=False),
    )


def best_of(rows: list[Any], k: int) -> list[str]:
    """The top `k` turn ids of `(id, asked_at, turn_id, bm25)` rows: the lowest bm25 first,
    ties to the newer turn, then to the higher id."""
    rows.sort(key=lambda r: r[0], reverse=True)
    rows.sort(key=lambda r: r[1], reverse=True)
    rows.sort(key=lambda r: r[3])
    return [r[2] for r in rows[:k]]


def match_expression(terms: Sequence[str]) -> str:
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


class Baseline:
    def __init__(self, path: Path, driver_name: str = "sqlite3", work: bool = False) -> None:
        """`work`: a new database gets the work column (an existing one keeps what it has)."""
        self.path = path
        self.sqlite = driver(driver_name)
        fresh = not path.exists()
        self.conn = self.sqlite.connect(str(path), isolation_level=None)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        if fresh:
            self.begin()
            for statement in _schema(work):
                self.conn.execute(statement)
            self.commit()
        names = {line[1] for line in self.conn.execute("PRAGMA table_info(turns)")}
        self.work = "work" in names
        columns = f"{COLUMNS}, work" if self.work else COLUMNS
        places = ", ".join("?" * len(columns.split(", ")))
        self.insert = f"INSERT INTO turns ({columns}) VALUES ({places})"
        if self.work:
            self.rank = f"bm25({', '.join(str(w) for w in (*WEIGHTS, WORK_WEIGHT))})"
        else:
            self.rank = RANK

    def _row(self, turn: GeneratedTurn) -> tuple[Any, ...]:
        return (*row(turn), turn.work) if self.work else row(turn)

    def begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def record(self, turn: GeneratedTurn) -> None:
        """One turn, one commit (autocommit: the INSERT is its own transaction)."""
        self.conn.execute(self.insert, self._row(turn))

    def record_batch(self, turns: Iterable[GeneratedTurn]) -> None:
        """Inside an open transaction: one `executemany`."""
        self.conn.executemany(self.insert, (self._row(turn) for turn in turns))

    def search(
        self, terms: Sequence[str], project: str | None = None, since: str | None = None, k: int = 5
    ) -> list[tuple[Any, ...]]:
        """The naive query: every term quoted and OR-ed, `ORDER BY rank LIMIT k`, where `rank` is
        FTS5's own rank column set to the weighted bm25 (FTS5 sorts, then the join reads only the
        rows the LIMIT lets through; ties fall where FTS5 puts them)."""
        sql, params = self._matching(f"{_ROW}, turns_fts.rank", terms, project, since)
        sql += f" AND turns_fts.rank MATCH '{self.rank}'"
        return list(self.conn.execute(f"{sql} ORDER BY turns_fts.rank LIMIT ?", [*params, k]))

    def exhaustive(
        self, terms: Sequence[str], project: str | None = None, k: int = 5
    ) -> tuple[list[str], int]:
        """The reference ranking: bm25 of every matching turn, ties to the newer turn. Returns
        the top `k` turn ids and how many turns matched."""
        # Without ORDER BY rank the planner may loop over the project's turns and evaluate the
        # MATCH once per row (minutes at 1M turns); CROSS JOIN keeps the full-text scan outside.
        bm25 = self.rank.replace("bm25(", "bm25(turns_fts, ")
        sql, params = self._matching(f"{_RANKED}, {bm25}", terms, project, None, "CROSS JOIN")
        rows = list(self.conn.execute(sql, params))
        return best_of(rows, k), len(rows)

    def _matching(
        self,
        selected: str,
        terms: Sequence[str],
        project: str | None,
        since: str | None,
        join: str = "JOIN",
    ) -> tuple[str, list[Any]]:
        sql = (
            f"SELECT {selected} FROM turns_fts "
            f"{join} turns t ON t.id = turns_fts.rowid WHERE turns_fts MATCH ?"
        )
        params: list[Any] = [match_expression(terms)]
        if project is not None:
            sql += " AND t.project = ?"
            params.append(project)
        if since is not None:
            sql += " AND t.asked_at >= ?"
            params.append(since)
        return sql, params

    def forget_session(self, session_id: str) -> int:
        return int(
            self.conn.execute("DELETE FROM turns WHERE session_id = ?", [session_id]).rowcount
        )

    def forget_project(self, project: str) -> int:
        return int(self.conn.execute("DELETE FROM turns WHERE project = ?", [project]).rowcount)

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM turns").fetchone()[0])

    def checkpoint(self) -> None:
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self.conn.close()

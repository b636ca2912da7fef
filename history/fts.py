"""Everything that knows the FTS5 DDL of `turns_fts`: probe, create, drop, rebuild, optimize.

`turns_fts` is an external-content FTS5 table over `turns(asked, answered, files)`; the triggers
`turns_ai`, `turns_ad` and `turns_au` keep it in step with `turns`. Migrations call these functions
with their own tokenizer string, so an old revision keeps meaning what it meant.
"""

from __future__ import annotations

from sqlalchemy import Connection, text
from sqlalchemy.exc import OperationalError

FTS_TABLE = "turns_fts"
INDEXED_COLUMNS = ("asked", "answered", "files")
TRIGGERS = ("turns_ai", "turns_ad", "turns_au")
DEFAULT_TOKENIZE = "unicode61 remove_diacritics 2"


def fts5_available(conn: Connection) -> bool:
    """True when this SQLite has FTS5 compiled in (probed with a temporary table)."""
    try:
        conn.exec_driver_sql("CREATE VIRTUAL TABLE temp.recall_fts5_probe USING fts5(x)")
    except OperationalError:
        return False
    conn.exec_driver_sql("DROP TABLE temp.recall_fts5_probe")
    return True


def fts_exists(conn: Connection) -> bool:
    found = conn.execute(
        text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"),
        {"name": FTS_TABLE},
    ).first()
    return found is not None


def create_fts_statements(tokenize: str = DEFAULT_TOKENIZE) -> list[str]:
    """The DDL for the FTS table and its triggers, then a rebuild from the rows already there."""
    cols = ", ".join(INDEXED_COLUMNS)
    return [
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5({cols}, "
        f"content='turns', content_rowid='id', tokenize='{tokenize}')",
        *trigger_statements(),
        rebuild_statement(),
    ]


def trigger_statements() -> list[str]:
    """The triggers that keep turns_fts in step with turns."""
    cols = ", ".join(INDEXED_COLUMNS)
    new_cols = ", ".join(f"new.{c}" for c in INDEXED_COLUMNS)
    old_cols = ", ".join(f"old.{c}" for c in INDEXED_COLUMNS)
    delete_old = (
        f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {cols}) "
        f"VALUES ('delete', old.id, {old_cols});"
    )
    insert_new = f"INSERT INTO {FTS_TABLE}(rowid, {cols}) VALUES (new.id, {new_cols});"
    return [
        f"CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN {insert_new} END",
        f"CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN {delete_old} END",
        # Only a change to an indexed column touches the index.
        f"CREATE TRIGGER turns_au AFTER UPDATE OF {cols} ON turns "
        f"BEGIN {delete_old} {insert_new} END",
    ]


def missing_triggers(conn: Connection) -> list[str]:
    found = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    present = set(found.scalars())
    return [name for name in TRIGGERS if name not in present]


def drop_fts_statements() -> list[str]:
    """Triggers first: a trigger left behind would fail every later write to `turns`."""
    return [*drop_triggers_statements(), f"DROP TABLE IF EXISTS {FTS_TABLE}"]


def drop_triggers_statements() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS]


def rebuild_statement() -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')"


def optimize_statement() -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize')"


def integrity_check_statement() -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"


def secure_delete_supported(conn: Connection) -> bool:
    """FTS5's `secure-delete` option (SQLite 3.42+) removes a deleted row's terms from the index
    at once, instead of leaving them in old segments until a merge."""
    version = conn.exec_driver_sql("SELECT sqlite_version()").scalar_one()
    return tuple(int(part) for part in str(version).split(".")[:2]) >= (3, 42)


def secure_delete_enabled(conn: Connection) -> bool:
    found = conn.exec_driver_sql(
        f"SELECT v FROM {FTS_TABLE}_config WHERE k = 'secure-delete'"
    ).scalar()
    return bool(found)


def secure_delete_statement(on: bool = True) -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('secure-delete', {int(on)})"

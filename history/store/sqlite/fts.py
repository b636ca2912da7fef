"""Everything that knows the FTS5 DDL of `turns_fts`: probe, create, drop, rebuild, optimize.

`turns_fts` is an external-content FTS5 table over `turns(asked, answered, files, work)` (the
work since revision 0016) and the project's tag; the triggers
`turns_ai`, `turns_ad` and `turns_au` keep it in step with `turns`. Since revision 0007 it reads
its text through `recall_index_text` (history.query.index_text, registered on every connection:
CJK runs become their character pairs) and stems with Porter, and its content table is the view
`turns_indexed`, which shows `turns` the same way. The revisions (alembic/versions) make the
table, its view and triggers with DDL of their own; `trigger_statements` gives head's triggers
back to `recall doctor`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from history.store.sqlite.connection import FTS_TABLE as FTS_TABLE
from history.store.sqlite.connection import INDEX_TEXT_FUNCTION
from history.store.sqlite.reads import Sql, operational

if TYPE_CHECKING:
    from sqlalchemy import Connection

TEXT_COLUMNS = ("asked", "answered", "files", "work")
# One token per project (a column of `turns` computed from `project`): a project-scoped search
# intersects posting lists inside FTS5 instead of looking up every match's row.
PROJECT_TAG = "project_tag"
INDEXED_COLUMNS = (*TEXT_COLUMNS, PROJECT_TAG)
# project_tag cannot be named in UPDATE OF (it is computed): a change of project reindexes.
WATCHED_COLUMNS = (*TEXT_COLUMNS, "project")
TRIGGERS = ("turns_ai", "turns_ad", "turns_au")
# While it holds a row, `turns_au` leaves the index alone (history/store/sqlite/in_place.py).
BY_HAND_TABLE = f"{FTS_TABLE}_by_hand"
DEFAULT_TOKENIZE = "porter unicode61 remove_diacritics 2"


def fts5_available(conn: Connection) -> bool:
    """True when this SQLite has FTS5 compiled in (probed with a temporary table)."""
    try:
        conn.exec_driver_sql("CREATE VIRTUAL TABLE temp.recall_fts5_probe USING fts5(x)")
    except Exception as error:
        if not operational(error):
            raise
        return False
    conn.exec_driver_sql("DROP TABLE temp.recall_fts5_probe")
    return True


def fts_exists(conn: Connection) -> bool:
    from sqlalchemy import text

    found = conn.execute(
        text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"),
        {"name": FTS_TABLE},
    ).first()
    return found is not None


def _indexed(row: str) -> str:
    """The indexed columns of `row` as FTS5 is given them: the text through INDEX_TEXT_FUNCTION,
    the project's tag as it is."""
    return ", ".join(
        f"{row}.{column}" if column == PROJECT_TAG else f"{INDEX_TEXT_FUNCTION}({row}.{column})"
        for column in INDEXED_COLUMNS
    )


def trigger_statements() -> list[str]:
    """The triggers that keep turns_fts in step with turns, as head has them (`recall doctor`
    puts back a missing one)."""
    cols = ", ".join(INDEXED_COLUMNS)
    delete_old = (
        f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {cols}) "
        f"VALUES ('delete', old.id, {_indexed('old')});"
    )
    insert_new = f"INSERT INTO {FTS_TABLE}(rowid, {cols}) VALUES (new.id, {_indexed('new')});"
    return [
        f"CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN {insert_new} END",
        f"CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN {delete_old} END",
        # Only a change to an indexed column touches the index; a re-scan that masks a turn
        # in place writes the index itself (in_place.py, revision 0022).
        f"CREATE TRIGGER turns_au AFTER UPDATE OF {', '.join(WATCHED_COLUMNS)} ON turns "
        f"WHEN NOT EXISTS (SELECT 1 FROM {BY_HAND_TABLE}) BEGIN {delete_old} {insert_new} END",
    ]


def missing_triggers(conn: Connection) -> list[str]:
    found = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    present = set(found.scalars())
    return [name for name in TRIGGERS if name not in present]


def drop_triggers_statements() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS]


def rebuild_statement() -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')"


def optimize_statement() -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize')"


def integrity_check_statement() -> str:
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"


def project_tag(project: str) -> str:
    """The token `turns.project_tag` holds for a project: 'p' || lower(hex(project))."""
    return "p" + project.encode("utf-8").hex()


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
    return config_statement("secure-delete", int(on))


def config_statement(option: str, value: int) -> str:
    """Set one of FTS5's persistent options (`automerge`, `crisismerge`, ...), or run one of its
    commands that takes a number (`merge`)."""
    return f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('{option}', {int(value)})"


def merge_statement(pages: int) -> str:
    """Merge segments until about `pages` pages are written; a no-op when no level holds enough
    segments to merge (FTS5's `usermerge`, 4) and no merge is under way."""
    return config_statement("merge", pages)


def indexed_rows(conn: Sql) -> int:
    """The number of rows FTS5 counts for bm25, from its averages record."""
    averages = conn.exec_driver_sql(f"SELECT block FROM {FTS_TABLE}_data WHERE id = 1").scalar()
    values = varints(averages or b"", 1)
    return values[0] if values else 0


def average_length(conn: Sql) -> float:
    """The average row length bm25 divides by (every column's tokens over the rows), from the
    same record."""
    averages = conn.exec_driver_sql(f"SELECT block FROM {FTS_TABLE}_data WHERE id = 1").scalar()
    values = varints(averages or b"")
    if not values or values[0] <= 0:
        return 1.0
    return sum(values[1:]) / values[0]


def varint(value: int) -> bytes:
    """SQLite's big-endian varint, as FTS5 writes its records (values under 2**56)."""
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(groups))


def varints(blob: bytes, wanted: int | None = None) -> list[int]:
    """SQLite's big-endian varints, as FTS5 writes its records (the first `wanted` of them)."""
    values: list[int] = []
    value, position = 0, 0
    for byte in blob:
        if wanted is not None and len(values) == wanted:
            break
        position += 1
        if position == 9:
            values.append((value << 8) | byte)
            value, position = 0, 0
            continue
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            values.append(value)
            value, position = 0, 0
    return values

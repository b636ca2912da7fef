"""Many turns in one statement: `record_many` on PostgreSQL.

An executemany sends one INSERT per turn (pipelined, but each still parsed, planned and run on
its own); here each column travels as one array and `unnest` turns them back into rows, so a
batch of a thousand turns is one statement; a single turn takes the same statement. A turn
already stored is updated in place (the rows come de-duplicated by turn_id, which ON CONFLICT
needs: it may touch a row only once per statement). `turns` is partitioned by project (revision
0019), so the conflict is on (project, turn_id); a turn id stored under another project is
moved by the table's trigger, `turn_ids` keeping each turn id once.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.dialects import postgresql

from history.store.models import TURN_COLUMNS, UtcDateTime

_NAMES = [column.key for column in TURN_COLUMNS]
_DIALECT = postgresql.dialect()  # type: ignore[no-untyped-call]
_ARRAYS = ", ".join(
    f"CAST(:{column.key} AS {column.type.compile(dialect=_DIALECT)}[])" for column in TURN_COLUMNS
)
# The columns that hold naive UTC (models.UtcDateTime), which a bare array does not convert.
_TIMES = [column.key for column in TURN_COLUMNS if isinstance(column.type, UtcDateTime)]
_KEY = ("project", "turn_id")
_UPDATED = ", ".join(f"{name} = excluded.{name}" for name in _NAMES if name not in _KEY)
UPSERT_ROWS = text(
    f"INSERT INTO turns ({', '.join(_NAMES)}) SELECT * FROM unnest({_ARRAYS})"
    f" ON CONFLICT (project, turn_id) DO UPDATE SET {_UPDATED}"
)


def upsert_rows(conn: Connection, values: list[dict[str, Any]]) -> None:
    """Insert or update `values` (row values keyed by column, one per turn_id)."""
    columns: dict[str, list[Any]] = {name: [] for name in _NAMES}
    for row in values:
        for name in _NAMES:
            columns[name].append(row[name])
    for name in _TIMES:
        columns[name] = [t.astimezone(UTC).replace(tzinfo=None) for t in columns[name]]
    conn.execute(UPSERT_ROWS, columns)

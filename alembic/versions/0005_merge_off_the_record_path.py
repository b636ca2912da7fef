"""FTS5 merges its segments off the recording path: automatic merging off, crisis merges rare.

FTS5's automatic merging runs inside whichever commit crosses its next 64 pages written; at a
million turns that is a ~40 ms stall in a random `record`. With `automerge` 0 the index's upkeep
(history/upkeep.py) merges in small steps once writes pause. `crisismerge` is FTS5's backstop,
merging a whole level at once when it holds that many segments: 256 keeps it out of any burst a
live agent makes, while bounding the segments a search reads if upkeep never ran.

Revision ID: 0005_merge_off_the_record_path
Revises: 0004_project_in_full_text
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_merge_off_the_record_path"
down_revision: str | None = "0004_project_in_full_text"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# FTS5's defaults, restored by the downgrade.
DEFAULT_AUTOMERGE, DEFAULT_CRISISMERGE = 4, 16
CRISISMERGE = 256
PENDING_LIST_KB = 4096


def _fts5_option(option: str, value: int) -> str:
    return f"INSERT INTO turns_fts(turns_fts, rank) VALUES ('{option}', {value})"


# PostgreSQL: GIN's pending list takes new entries, merged by upkeep, not by a `record`.
PENDING_LIST = (
    "ALTER INDEX ix_turns_search_vector "
    f"SET (fastupdate = on, gin_pending_list_limit = {PENDING_LIST_KB})"
)
# PostgreSQL's default (4 MB, merged by whichever insert fills it).
DEFAULT_PENDING_LIST = (
    "ALTER INDEX ix_turns_search_vector RESET (fastupdate, gin_pending_list_limit)"
)


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def _has_fts() -> bool:
    if _postgres():
        return False
    return op.get_context().as_sql or sa.inspect(op.get_bind()).has_table("turns_fts")


def upgrade() -> None:
    if _postgres():
        op.execute(PENDING_LIST)
    if _has_fts():
        op.execute(_fts5_option("automerge", 0))
        op.execute(_fts5_option("crisismerge", CRISISMERGE))


def downgrade() -> None:
    if _postgres():
        op.execute(DEFAULT_PENDING_LIST)
    if _has_fts():
        op.execute(_fts5_option("automerge", DEFAULT_AUTOMERGE))
        op.execute(_fts5_option("crisismerge", DEFAULT_CRISISMERGE))

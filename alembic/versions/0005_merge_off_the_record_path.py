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

from alembic import op

from history.store.postgres import schema as pg
from history.store.sqlite import fts

revision: str = "0005_merge_off_the_record_path"
down_revision: str | None = "0004_project_in_full_text"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# FTS5's defaults, restored by the downgrade.
DEFAULT_AUTOMERGE, DEFAULT_CRISISMERGE = 4, 16
CRISISMERGE = 256


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def _has_fts() -> bool:
    if _postgres():
        return False
    return op.get_context().as_sql or fts.fts_exists(op.get_bind())


def upgrade() -> None:
    if _postgres():
        op.execute(pg.pending_list_statement(pg.PENDING_LIST_KB))
    if _has_fts():
        op.execute(fts.config_statement("automerge", 0))
        op.execute(fts.config_statement("crisismerge", CRISISMERGE))


def downgrade() -> None:
    if _postgres():
        op.execute(pg.pending_list_statement(None))
    if _has_fts():
        op.execute(fts.config_statement("automerge", DEFAULT_AUTOMERGE))
        op.execute(fts.config_statement("crisismerge", DEFAULT_CRISISMERGE))

"""SQLite: a bulk write counts its new turns into the summaries once, not row by row.

The insert trigger `turns_summary_ai` steps aside while `recall_summing_in_bulk()` (registered
on every connection) says a bulk write is inserting; `record_many` then counts the batch's new
rows into `projects`, `conversations` and `conversation_edits` with one statement each
(history/store/sqlite/summaries.py). PostgreSQL keeps its trigger functions as they are.

Revision ID: 0010_summaries_after_bulk_writes
Revises: 0009_postgres_asked_words
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from history.store.sqlite import summaries

revision: str = "0010_summaries_after_bulk_writes"
down_revision: str | None = "0009_postgres_asked_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in summaries.insert_trigger_statements(bulk_aware=True):
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in summaries.insert_trigger_statements(bulk_aware=False):
            op.execute(statement)

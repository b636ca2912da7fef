"""SQLite: the summary, lists and word-count delete triggers step aside for a large forget's
batches (history/store/sqlite/bulk_forget.py), which mend those rows set by set.

`turns_summary_ad`, `best_turns_ad` and `word_counts_ad` are made again with
`WHEN NOT recall_forgetting_in_bulk()`, a function every connection of this package registers
(off unless a batch turns it on). Their bodies are unchanged. PostgreSQL is left as it is.

Revision ID: 0015_bulk_forget_triggers
Revises: 0014_postgres_question_repeats
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from history.store.sqlite import bulk_forget

revision: str = "0015_bulk_forget_triggers"
down_revision: str | None = "0014_postgres_question_repeats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in bulk_forget.trigger_statements(bulk_aware=True):
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in bulk_forget.trigger_statements(bulk_aware=False):
            op.execute(statement)

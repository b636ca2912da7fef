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

revision: str = "0010_summaries_after_bulk_writes"
down_revision: str | None = "0009_postgres_asked_words"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The DDL as this revision runs it, written out: a later change elsewhere leaves it as it is.
# What revision 0006's insert trigger does, unchanged.
ADDED = """
    INSERT INTO projects (project, turns, conversations, first_asked_at, last_asked_at)
        VALUES (new.project, 1, 0, new.asked_at, new.asked_at)
        ON CONFLICT (project) DO UPDATE SET turns = turns + 1,
            first_asked_at = min(first_asked_at, excluded.first_asked_at),
            last_asked_at = max(last_asked_at, excluded.last_asked_at);
    UPDATE projects SET conversations = conversations + 1 WHERE project = new.project
        AND NOT EXISTS (SELECT 1 FROM conversations
            WHERE session_id = new.session_id AND project = new.project);
    INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id,
            first_asked_at, last_asked_at)
        VALUES (new.session_id, new.project, 1, new.tainted, new.id, new.asked_at, new.asked_at)
        ON CONFLICT (session_id, project) DO UPDATE SET turns = turns + 1,
            tainted_turns = tainted_turns + excluded.tainted_turns,
            first_id = CASE WHEN (excluded.first_asked_at, excluded.first_id)
                < (first_asked_at, first_id) THEN excluded.first_id ELSE first_id END,
            first_asked_at = min(first_asked_at, excluded.first_asked_at),
            last_asked_at = max(last_asked_at, excluded.last_asked_at);
    INSERT INTO conversation_edits (session_id, project, path, turns)
        SELECT DISTINCT new.session_id, new.project, value, 1 FROM json_each(new.edited)
        WHERE true ON CONFLICT (session_id, project, path) DO UPDATE SET turns = turns + 1;
"""
BULK_AWARE = (
    "DROP TRIGGER IF EXISTS turns_summary_ai",
    "CREATE TRIGGER turns_summary_ai AFTER INSERT ON turns WHEN NOT recall_summing_in_bulk() "
    f"BEGIN {ADDED} END",
)
ROW_BY_ROW = (
    "DROP TRIGGER IF EXISTS turns_summary_ai",
    f"CREATE TRIGGER turns_summary_ai AFTER INSERT ON turns BEGIN {ADDED} END",
)


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in BULK_AWARE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        for statement in ROW_BY_ROW:
            op.execute(statement)

"""Summary rows for the lists of conversations and projects, kept by triggers; a conversation's
turns indexed in time order.

`conversations`, `conversation_edits` and `projects` are filled from the turns already stored,
then kept in step by triggers on `turns` (on PostgreSQL, trigger functions), inside the
statement that changes `turns`. A removed turn that held a conversation's or project's first or
last time has it looked up again in the turns left, through an index. `ix_turns_session_id`
becomes `ix_turns_session_id_asked_at`: a conversation reads in order from it, and the triggers
find a conversation's new first or last turn through it.

Revision ID: 0006_conversation_summaries
Revises: 0005_merge_off_the_record_path
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_conversation_summaries"
down_revision: str | None = "0005_merge_off_the_record_path"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# The DDL and the backfill as this revision runs them, written out: a later change elsewhere
# leaves them as they are.

# SQLite: count the turn `new` into its project, its conversation and its edited files ...
SQLITE_ADDED = """
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
# ... and the turn `old` out again; rows that reach zero turns go.
SQLITE_REMOVED = """
    DELETE FROM conversation_edits WHERE session_id = old.session_id AND project = old.project
        AND path IN (SELECT value FROM json_each(old.edited)) AND turns = 1;
    UPDATE conversation_edits SET turns = turns - 1
        WHERE session_id = old.session_id AND project = old.project
        AND path IN (SELECT value FROM json_each(old.edited));
    DELETE FROM conversations
        WHERE session_id = old.session_id AND project = old.project AND turns = 1;
    UPDATE conversations SET turns = turns - 1, tainted_turns = tainted_turns - old.tainted,
        first_id = CASE WHEN first_id = old.id THEN (SELECT id FROM turns
            WHERE session_id = old.session_id AND project = old.project
            ORDER BY asked_at, id LIMIT 1) ELSE first_id END,
        first_asked_at = CASE WHEN first_id = old.id THEN (SELECT asked_at FROM turns
            WHERE session_id = old.session_id AND project = old.project
            ORDER BY asked_at, id LIMIT 1) ELSE first_asked_at END,
        last_asked_at = CASE WHEN last_asked_at = old.asked_at THEN (SELECT asked_at FROM turns
            WHERE session_id = old.session_id AND project = old.project
            ORDER BY asked_at DESC LIMIT 1) ELSE last_asked_at END
        WHERE session_id = old.session_id AND project = old.project;
    UPDATE projects SET conversations = conversations - 1 WHERE project = old.project
        AND NOT EXISTS (SELECT 1 FROM conversations
            WHERE session_id = old.session_id AND project = old.project);
    DELETE FROM projects WHERE project = old.project AND turns = 1;
    UPDATE projects SET turns = turns - 1,
        first_asked_at = CASE WHEN first_asked_at = old.asked_at
            THEN (SELECT min(asked_at) FROM turns WHERE project = old.project)
            ELSE first_asked_at END,
        last_asked_at = CASE WHEN last_asked_at = old.asked_at
            THEN (SELECT max(asked_at) FROM turns WHERE project = old.project)
            ELSE last_asked_at END
        WHERE project = old.project;
"""
# An upsert names every column in its SET, which fires UPDATE OF whatever changed: the WHEN
# keeps a re-recorded turn whose summed columns are the same from touching the summaries.
SQLITE_TRIGGERS = (
    f"CREATE TRIGGER turns_summary_ai AFTER INSERT ON turns BEGIN {SQLITE_ADDED} END",
    f"CREATE TRIGGER turns_summary_ad AFTER DELETE ON turns BEGIN {SQLITE_REMOVED} END",
    f"""
    CREATE TRIGGER turns_summary_au
    AFTER UPDATE OF session_id, project, asked_at, tainted, edited ON turns
    WHEN old.session_id IS NOT new.session_id OR old.project IS NOT new.project
        OR old.asked_at IS NOT new.asked_at OR old.tainted IS NOT new.tainted
        OR old.edited IS NOT new.edited
    BEGIN {SQLITE_REMOVED} {SQLITE_ADDED} END
    """,
)
SQLITE_BACKFILL = (
    """
    INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id,
        first_asked_at, last_asked_at)
    SELECT session_id, project, count(*), sum(tainted), 0, min(asked_at), max(asked_at)
    FROM turns GROUP BY session_id, project
    """,
    """
    UPDATE conversations SET first_id = (SELECT id FROM turns
        WHERE turns.session_id = conversations.session_id
        AND turns.project = conversations.project ORDER BY asked_at, id LIMIT 1)
    """,
    """
    INSERT INTO conversation_edits (session_id, project, path, turns)
    SELECT session_id, project, edited_path.value, count(DISTINCT turns.id)
    FROM turns, json_each(turns.edited) AS edited_path
    GROUP BY session_id, project, edited_path.value
    """,
    """
    INSERT INTO projects (project, turns, conversations, first_asked_at, last_asked_at)
    SELECT project, sum(turns), count(*), min(first_asked_at), max(last_asked_at)
    FROM conversations GROUP BY project
    """,
)
SQLITE_DROP = (
    "DROP TRIGGER IF EXISTS turns_summary_ai",
    "DROP TRIGGER IF EXISTS turns_summary_ad",
    "DROP TRIGGER IF EXISTS turns_summary_au",
)

# PostgreSQL: the same bookkeeping in PL/pgSQL. The triggers fire once the statement has changed
# every row, so the turns left may be none while a summary still counts some: the old value then
# stays (coalesce) until the count reaches the last turn and the row goes.
PG_ADDED = """
    INSERT INTO projects AS p (project, turns, conversations, first_asked_at, last_asked_at)
        VALUES (new.project, 1, 0, new.asked_at, new.asked_at)
        ON CONFLICT (project) DO UPDATE SET turns = p.turns + 1,
            first_asked_at = least(p.first_asked_at, excluded.first_asked_at),
            last_asked_at = greatest(p.last_asked_at, excluded.last_asked_at);
    UPDATE projects SET conversations = conversations + 1 WHERE project = new.project
        AND NOT EXISTS (SELECT FROM conversations
            WHERE session_id = new.session_id AND project = new.project);
    INSERT INTO conversations AS c (session_id, project, turns, tainted_turns, first_id,
            first_asked_at, last_asked_at)
        VALUES (new.session_id, new.project, 1, new.tainted::int, new.id, new.asked_at,
            new.asked_at)
        ON CONFLICT (session_id, project) DO UPDATE SET turns = c.turns + 1,
            tainted_turns = c.tainted_turns + excluded.tainted_turns,
            first_id = CASE WHEN (excluded.first_asked_at, excluded.first_id)
                < (c.first_asked_at, c.first_id) THEN excluded.first_id ELSE c.first_id END,
            first_asked_at = least(c.first_asked_at, excluded.first_asked_at),
            last_asked_at = greatest(c.last_asked_at, excluded.last_asked_at);
    INSERT INTO conversation_edits AS e (session_id, project, path, turns)
        SELECT DISTINCT new.session_id, new.project, path, 1
        FROM json_array_elements_text(CAST(new.edited AS json)) AS path
        ON CONFLICT (session_id, project, path) DO UPDATE SET turns = e.turns + 1;
"""
PG_REMOVED = """
    DELETE FROM conversation_edits WHERE session_id = old.session_id AND project = old.project
        AND path IN (SELECT * FROM json_array_elements_text(CAST(old.edited AS json)))
        AND turns = 1;
    UPDATE conversation_edits SET turns = turns - 1
        WHERE session_id = old.session_id AND project = old.project
        AND path IN (SELECT * FROM json_array_elements_text(CAST(old.edited AS json)));
    DELETE FROM conversations
        WHERE session_id = old.session_id AND project = old.project AND turns = 1;
    UPDATE conversations SET turns = turns - 1,
        tainted_turns = tainted_turns - old.tainted::int,
        first_id = CASE WHEN first_id = old.id THEN coalesce((SELECT id FROM turns
            WHERE session_id = old.session_id AND project = old.project
            ORDER BY asked_at, id LIMIT 1), first_id) ELSE first_id END,
        first_asked_at = CASE WHEN first_id = old.id THEN coalesce((SELECT asked_at FROM turns
            WHERE session_id = old.session_id AND project = old.project
            ORDER BY asked_at, id LIMIT 1), first_asked_at) ELSE first_asked_at END,
        last_asked_at = CASE WHEN last_asked_at = old.asked_at THEN coalesce((SELECT asked_at
            FROM turns WHERE session_id = old.session_id AND project = old.project
            ORDER BY asked_at DESC LIMIT 1), last_asked_at) ELSE last_asked_at END
        WHERE session_id = old.session_id AND project = old.project;
    UPDATE projects SET conversations = conversations - 1 WHERE project = old.project
        AND NOT EXISTS (SELECT FROM conversations
            WHERE session_id = old.session_id AND project = old.project);
    DELETE FROM projects WHERE project = old.project AND turns = 1;
    UPDATE projects SET turns = turns - 1,
        first_asked_at = CASE WHEN first_asked_at = old.asked_at THEN coalesce(
            (SELECT min(asked_at) FROM turns WHERE project = old.project), first_asked_at)
            ELSE first_asked_at END,
        last_asked_at = CASE WHEN last_asked_at = old.asked_at THEN coalesce(
            (SELECT max(asked_at) FROM turns WHERE project = old.project), last_asked_at)
            ELSE last_asked_at END
        WHERE project = old.project;
"""
PG_TRIGGERS = (
    "CREATE FUNCTION turns_summary_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"{PG_ADDED} RETURN NULL; END $$",
    "CREATE FUNCTION turns_summary_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"{PG_REMOVED} RETURN NULL; END $$",
    "CREATE FUNCTION turns_summary_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"{PG_REMOVED} {PG_ADDED} RETURN NULL; END $$",
    "CREATE TRIGGER turns_summary_ai AFTER INSERT ON turns FOR EACH ROW "
    "EXECUTE FUNCTION turns_summary_ai()",
    "CREATE TRIGGER turns_summary_ad AFTER DELETE ON turns FOR EACH ROW "
    "EXECUTE FUNCTION turns_summary_ad()",
    """
    CREATE TRIGGER turns_summary_au
    AFTER UPDATE OF session_id, project, asked_at, tainted, edited ON turns FOR EACH ROW
    WHEN (old.session_id IS DISTINCT FROM new.session_id
        OR old.project IS DISTINCT FROM new.project
        OR old.asked_at IS DISTINCT FROM new.asked_at
        OR old.tainted IS DISTINCT FROM new.tainted
        OR old.edited IS DISTINCT FROM new.edited)
    EXECUTE FUNCTION turns_summary_au()
    """,
)
PG_BACKFILL = (
    """
    INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id,
        first_asked_at, last_asked_at)
    SELECT session_id, project, count(*), sum(tainted::int), 0, min(asked_at), max(asked_at)
    FROM turns GROUP BY session_id, project
    """,
    """
    UPDATE conversations SET first_id = (SELECT id FROM turns
        WHERE turns.session_id = conversations.session_id
        AND turns.project = conversations.project ORDER BY asked_at, id LIMIT 1)
    """,
    """
    INSERT INTO conversation_edits (session_id, project, path, turns)
    SELECT session_id, project, path, count(DISTINCT turns.id)
    FROM turns, json_array_elements_text(CAST(turns.edited AS json)) AS path
    GROUP BY session_id, project, path
    """,
    """
    INSERT INTO projects (project, turns, conversations, first_asked_at, last_asked_at)
    SELECT project, sum(turns), count(*), min(first_asked_at), max(last_asked_at)
    FROM conversations GROUP BY project
    """,
)
PG_DROP = (
    "DROP TRIGGER IF EXISTS turns_summary_ai ON turns",
    "DROP TRIGGER IF EXISTS turns_summary_ad ON turns",
    "DROP TRIGGER IF EXISTS turns_summary_au ON turns",
    "DROP FUNCTION IF EXISTS turns_summary_ai()",
    "DROP FUNCTION IF EXISTS turns_summary_ad()",
    "DROP FUNCTION IF EXISTS turns_summary_au()",
)


def _postgres() -> bool:
    return op.get_context().dialect.name == "postgresql"


def upgrade() -> None:
    op.create_index("ix_turns_session_id_asked_at", "turns", ["session_id", "asked_at"])
    op.drop_index("ix_turns_session_id", table_name="turns")
    op.create_table(
        "conversations",
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("tainted_turns", sa.Integer(), nullable=False),
        sa.Column("first_id", sa.Integer(), nullable=False),
        sa.Column("first_asked_at", sa.DateTime(), nullable=False),
        sa.Column("last_asked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("session_id", "project", name=op.f("pk_conversations")),
    )
    op.create_index(
        "ix_conversations_last_asked_at",
        "conversations",
        ["last_asked_at", "session_id", "project"],
    )
    op.create_index(
        "ix_conversations_project_last_asked_at",
        "conversations",
        ["project", "last_asked_at", "session_id"],
    )
    op.create_table(
        "conversation_edits",
        sa.Column("session_id", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "session_id", "project", "path", name=op.f("pk_conversation_edits")
        ),
    )
    op.create_table(
        "projects",
        sa.Column("project", sa.String(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("conversations", sa.Integer(), nullable=False),
        sa.Column("first_asked_at", sa.DateTime(), nullable=False),
        sa.Column("last_asked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("project", name=op.f("pk_projects")),
    )
    filled = [*PG_BACKFILL, *PG_TRIGGERS] if _postgres() else [*SQLITE_BACKFILL, *SQLITE_TRIGGERS]
    for statement in filled:
        op.execute(statement)


def downgrade() -> None:
    for statement in PG_DROP if _postgres() else SQLITE_DROP:
        op.execute(statement)
    op.drop_table("projects")
    op.drop_table("conversation_edits")
    op.drop_index("ix_conversations_project_last_asked_at", table_name="conversations")
    op.drop_index("ix_conversations_last_asked_at", table_name="conversations")
    op.drop_table("conversations")
    op.create_index("ix_turns_session_id", "turns", ["session_id"])
    op.drop_index("ix_turns_session_id_asked_at", table_name="turns")

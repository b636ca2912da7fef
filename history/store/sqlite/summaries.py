"""Everything that knows the SQLite DDL of the summary rows: their triggers and their backfill.

`conversations`, `conversation_edits` and `projects` (history/store/models.py) are kept in step
with `turns` by the triggers `turns_summary_ai`, `_ad` and `_au`, inside the statement that
changes `turns`: a forget removes a conversation's summary in the same transaction as its rows.
A removed turn that held a conversation's or project's first or last time has it looked up again
in the turns that are left, through an index (`ix_turns_session_id_asked_at`,
`ix_turns_project_asked_at`), so forgetting a conversation of n turns costs O(n log n).
"""

from __future__ import annotations

from history.store.summary_rows import SUMMED_COLUMNS, TRIGGERS

# Since revision 0010 a bulk write (record_many) counts its new turns in once, set by set, after
# its rows are in (`bulk_added_statements`): the insert trigger steps aside while this function,
# registered on every connection (engine.py), says so. Per turn that is ~4 row lookups fewer.
IN_BULK_FUNCTION = "recall_summing_in_bulk"
LAST_ID = "SELECT coalesce(max(id), 0) FROM turns"


def _same_conversation(row: str) -> str:
    return f"session_id = {row}.session_id AND project = {row}.project"


def _added(row: str) -> list[str]:
    """Count the turn `row` (`new`) into its conversation, its project and its edited files."""
    conversation = _same_conversation(row)
    return [
        "INSERT INTO projects (project, turns, conversations, first_asked_at, last_asked_at) "
        f"VALUES ({row}.project, 1, 0, {row}.asked_at, {row}.asked_at) "
        "ON CONFLICT (project) DO UPDATE SET turns = turns + 1, "
        "first_asked_at = min(first_asked_at, excluded.first_asked_at), "
        "last_asked_at = max(last_asked_at, excluded.last_asked_at);",
        # Before the conversation's row exists: its first turn counts a conversation.
        f"UPDATE projects SET conversations = conversations + 1 WHERE project = {row}.project "
        f"AND NOT EXISTS (SELECT 1 FROM conversations WHERE {conversation});",
        "INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id, "
        "first_asked_at, last_asked_at) "
        f"VALUES ({row}.session_id, {row}.project, 1, {row}.tainted, {row}.id, {row}.asked_at, "
        f"{row}.asked_at) "
        "ON CONFLICT (session_id, project) DO UPDATE SET turns = turns + 1, "
        "tainted_turns = tainted_turns + excluded.tainted_turns, "
        "first_id = CASE WHEN (excluded.first_asked_at, excluded.first_id) "
        "< (first_asked_at, first_id) THEN excluded.first_id ELSE first_id END, "
        "first_asked_at = min(first_asked_at, excluded.first_asked_at), "
        "last_asked_at = max(last_asked_at, excluded.last_asked_at);",
        # `WHERE true`: SQLite needs it to tell an upsert's ON from a join's.
        "INSERT INTO conversation_edits (session_id, project, path, turns) "
        f"SELECT DISTINCT {row}.session_id, {row}.project, value, 1 FROM json_each({row}.edited) "
        "WHERE true ON CONFLICT (session_id, project, path) DO UPDATE SET turns = turns + 1;",
    ]


def _removed(row: str) -> list[str]:
    """Count the turn `row` (`old`) out again; rows that reach zero turns go."""
    conversation = _same_conversation(row)
    left = f"FROM turns WHERE {conversation}"
    edits = f"{conversation} AND path IN (SELECT value FROM json_each({row}.edited))"
    return [
        f"DELETE FROM conversation_edits WHERE {edits} AND turns = 1;",
        f"UPDATE conversation_edits SET turns = turns - 1 WHERE {edits};",
        f"DELETE FROM conversations WHERE {conversation} AND turns = 1;",
        "UPDATE conversations SET turns = turns - 1, "
        f"tainted_turns = tainted_turns - {row}.tainted, "
        f"first_id = CASE WHEN first_id = {row}.id "
        f"THEN (SELECT id {left} ORDER BY asked_at, id LIMIT 1) ELSE first_id END, "
        f"first_asked_at = CASE WHEN first_id = {row}.id "
        f"THEN (SELECT asked_at {left} ORDER BY asked_at, id LIMIT 1) ELSE first_asked_at END, "
        f"last_asked_at = CASE WHEN last_asked_at = {row}.asked_at "
        f"THEN (SELECT asked_at {left} ORDER BY asked_at DESC LIMIT 1) ELSE last_asked_at END "
        f"WHERE {conversation};",
        # The conversation's row is gone only if this was its last turn.
        f"UPDATE projects SET conversations = conversations - 1 WHERE project = {row}.project "
        f"AND NOT EXISTS (SELECT 1 FROM conversations WHERE {conversation});",
        f"DELETE FROM projects WHERE project = {row}.project AND turns = 1;",
        f"UPDATE projects SET turns = turns - 1, "
        f"first_asked_at = CASE WHEN first_asked_at = {row}.asked_at "
        f"THEN (SELECT min(asked_at) FROM turns WHERE project = {row}.project) "
        "ELSE first_asked_at END, "
        f"last_asked_at = CASE WHEN last_asked_at = {row}.asked_at "
        f"THEN (SELECT max(asked_at) FROM turns WHERE project = {row}.project) "
        "ELSE last_asked_at END "
        f"WHERE project = {row}.project;",
    ]


class BulkFlag:
    """One connection's answer to IN_BULK_FUNCTION: on while a bulk write inserts its rows."""

    def __init__(self) -> None:
        self.on = False

    def __call__(self) -> int:
        return int(self.on)


def trigger_statements(bulk_aware: bool = False) -> list[str]:
    """The summary triggers as revision 0006 made them; since 0010 (`bulk_aware`) the insert
    trigger steps aside during a bulk write."""
    # An upsert names every column in its SET, which fires UPDATE OF whatever changed: the WHEN
    # keeps a re-recorded turn whose summed columns are the same from touching the summaries.
    changed = " OR ".join(f"old.{column} IS NOT new.{column}" for column in SUMMED_COLUMNS)
    added, removed = " ".join(_added("new")), " ".join(_removed("old"))
    unless_bulk = f"WHEN NOT {IN_BULK_FUNCTION}() " if bulk_aware else ""
    return [
        f"CREATE TRIGGER turns_summary_ai AFTER INSERT ON turns {unless_bulk}BEGIN {added} END",
        f"CREATE TRIGGER turns_summary_ad AFTER DELETE ON turns BEGIN {removed} END",
        f"CREATE TRIGGER turns_summary_au AFTER UPDATE OF {', '.join(SUMMED_COLUMNS)} ON turns "
        f"WHEN {changed} BEGIN {removed} {added} END",
    ]


def bulk_added_statements() -> list[str]:
    """Count the turns with ids above :before (a bulk write's new rows, the insert trigger
    aside) into the summaries, as the trigger would have one row after another."""
    # Materialized first: grouping straight from `turns`, SQLite would walk a whole index in
    # group order to skip a sort, reading every turn to find the batch's few.
    new = (
        "WITH new AS MATERIALIZED (SELECT id, session_id, project, asked_at, tainted, edited "
        "FROM turns WHERE id > :before) "
    )
    first = (
        "(SELECT first.id FROM new AS first WHERE first.session_id = new.session_id "
        "AND first.project = new.project ORDER BY first.asked_at, first.id LIMIT 1)"
    )
    return [
        f"{new}INSERT INTO projects (project, turns, conversations, first_asked_at, "
        "last_asked_at) SELECT project, count(*), 0, min(asked_at), max(asked_at) FROM new "
        "WHERE true GROUP BY project ON CONFLICT (project) DO UPDATE SET "
        "turns = turns + excluded.turns, "
        "first_asked_at = min(first_asked_at, excluded.first_asked_at), "
        "last_asked_at = max(last_asked_at, excluded.last_asked_at)",
        # The conversations new to a project, counted before their summary rows exist.
        f"{new}UPDATE projects SET conversations = projects.conversations + counted.conversations "
        "FROM (SELECT project, count(DISTINCT session_id) AS conversations FROM new "
        "WHERE NOT EXISTS (SELECT 1 FROM conversations WHERE "
        "conversations.session_id = new.session_id AND conversations.project = new.project) "
        "GROUP BY project) AS counted WHERE projects.project = counted.project",
        f"{new}INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id, "
        "first_asked_at, last_asked_at) "
        f"SELECT session_id, project, count(*), sum(tainted), {first}, min(asked_at), "
        "max(asked_at) FROM new WHERE true GROUP BY session_id, project "
        "ON CONFLICT (session_id, project) DO UPDATE SET turns = turns + excluded.turns, "
        "tainted_turns = tainted_turns + excluded.tainted_turns, "
        "first_id = CASE WHEN (excluded.first_asked_at, excluded.first_id) "
        "< (first_asked_at, first_id) THEN excluded.first_id ELSE first_id END, "
        "first_asked_at = min(first_asked_at, excluded.first_asked_at), "
        "last_asked_at = max(last_asked_at, excluded.last_asked_at)",
        f"{new}INSERT INTO conversation_edits (session_id, project, path, turns) "
        "SELECT session_id, project, edited_path.value, count(DISTINCT new.id) "
        "FROM new, json_each(new.edited) AS edited_path WHERE true "
        "GROUP BY session_id, project, edited_path.value "
        "ON CONFLICT (session_id, project, path) DO UPDATE SET turns = turns + excluded.turns",
    ]


def insert_trigger_statements(bulk_aware: bool) -> list[str]:
    """Replace the insert trigger alone (revision 0010 and its downgrade)."""
    return ["DROP TRIGGER IF EXISTS turns_summary_ai", trigger_statements(bulk_aware)[0]]


def drop_triggers_statements() -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS]


def backfill_statements() -> list[str]:
    """Summaries of the turns already stored (the summary tables empty)."""
    return [
        "INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id, "
        "first_asked_at, last_asked_at) "
        "SELECT session_id, project, count(*), sum(tainted), 0, min(asked_at), max(asked_at) "
        "FROM turns GROUP BY session_id, project",
        "UPDATE conversations SET first_id = (SELECT id FROM turns "
        "WHERE turns.session_id = conversations.session_id "
        "AND turns.project = conversations.project ORDER BY asked_at, id LIMIT 1)",
        "INSERT INTO conversation_edits (session_id, project, path, turns) "
        "SELECT session_id, project, edited_path.value, count(DISTINCT turns.id) "
        "FROM turns, json_each(turns.edited) AS edited_path "
        "GROUP BY session_id, project, edited_path.value",
        "INSERT INTO projects (project, turns, conversations, first_asked_at, last_asked_at) "
        "SELECT project, sum(turns), count(*), min(first_asked_at), max(last_asked_at) "
        "FROM conversations GROUP BY project",
    ]

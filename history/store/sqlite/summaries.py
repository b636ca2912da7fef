"""The summary rows a bulk write counts in itself, on SQLite.

`conversations`, `conversation_edits` and `projects` (history/store/models.py) are kept in step
with `turns` by the triggers `turns_summary_ai`, `_ad` and `_au` (revisions 0006 and 0010),
inside the statement that changes `turns`: a forget removes a conversation's summary in the same
transaction as its rows. A removed turn that held a conversation's or project's first or last
time has it looked up again in the turns that are left, through an index
(`ix_turns_session_id_asked_at`, `ix_turns_project_asked_at`), so forgetting a conversation of n
turns costs O(n log n).
"""

from __future__ import annotations

# Since revision 0010 a bulk write (record_many) counts its new turns in once, set by set, after
# its rows are in (`bulk_added_statements`): the insert trigger steps aside while this function,
# registered on every connection (engine.py), says so. Per turn that is ~4 row lookups fewer.
IN_BULK_FUNCTION = "recall_summing_in_bulk"
LAST_ID = "SELECT coalesce(max(id), 0) FROM turns"


class BulkFlag:
    """One connection's answer to IN_BULK_FUNCTION: on while a bulk write inserts its rows."""

    def __init__(self) -> None:
        self.on = False

    def __call__(self) -> int:
        return int(self.on)


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

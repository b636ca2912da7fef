"""The summary rows on PostgreSQL, counted from the turns already stored: what a bulk load that
left the summaries' triggers aside (bench/pg_load.py) runs once its rows are in.

The triggers that keep them in step row by row (`turns_summary_ai`, `_ad`, `_au`, PL/pgSQL
trigger functions) are made by revision 0006.
"""

from __future__ import annotations


def _edited_paths(row: str) -> str:
    return f"json_array_elements_text(CAST({row}.edited AS json))"


def backfill_statements() -> list[str]:
    """Summaries of the turns already stored (the summary tables empty)."""
    return [
        "INSERT INTO conversations (session_id, project, turns, tainted_turns, first_id,"
        " first_asked_at, last_asked_at)"
        " SELECT session_id, project, count(*), sum(tainted::int), 0, min(asked_at),"
        " max(asked_at) FROM turns GROUP BY session_id, project",
        "UPDATE conversations SET first_id = (SELECT id FROM turns"
        " WHERE turns.session_id = conversations.session_id"
        " AND turns.project = conversations.project ORDER BY asked_at, id LIMIT 1)",
        "INSERT INTO conversation_edits (session_id, project, path, turns)"
        " SELECT session_id, project, path, count(DISTINCT turns.id)"
        f" FROM turns, {_edited_paths('turns')} AS path GROUP BY session_id, project, path",
        "INSERT INTO projects (project, turns, conversations, first_asked_at, last_asked_at)"
        " SELECT project, sum(turns), count(*), min(first_asked_at), max(last_asked_at)"
        " FROM conversations GROUP BY project",
    ]

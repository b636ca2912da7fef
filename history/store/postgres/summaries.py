"""The summary rows on PostgreSQL: the same bookkeeping as history/store/sqlite/summaries.py, in
PL/pgSQL trigger functions (`turns_summary_ai`, `_ad`, `_au`), and the same backfill.

The triggers fire for each row after the statement that changed `turns`, inside its transaction:
a forget removes a conversation's summary with its rows. They read the turns left behind to find
a conversation's or project's new first or last time, as SQLite's do; but where SQLite's fire
row by row during a DELETE, these fire once it has removed every row, so the turns left may be
none while the summary still counts some: the old value then stays until the count reaches the
last turn and the row goes.
"""

from __future__ import annotations

from history.store.summary_rows import SUMMED_COLUMNS, TRIGGERS


def _same_conversation(row: str) -> str:
    return f"session_id = {row}.session_id AND project = {row}.project"


def _edited_paths(row: str) -> str:
    return f"json_array_elements_text(CAST({row}.edited AS json))"


def _added(row: str) -> list[str]:
    conversation = _same_conversation(row)
    return [
        "INSERT INTO projects AS p (project, turns, conversations, first_asked_at, last_asked_at)"
        f" VALUES ({row}.project, 1, 0, {row}.asked_at, {row}.asked_at)"
        " ON CONFLICT (project) DO UPDATE SET turns = p.turns + 1,"
        " first_asked_at = least(p.first_asked_at, excluded.first_asked_at),"
        " last_asked_at = greatest(p.last_asked_at, excluded.last_asked_at);",
        f"UPDATE projects SET conversations = conversations + 1 WHERE project = {row}.project"
        f" AND NOT EXISTS (SELECT FROM conversations WHERE {conversation});",
        "INSERT INTO conversations AS c (session_id, project, turns, tainted_turns, first_id,"
        " first_asked_at, last_asked_at)"
        f" VALUES ({row}.session_id, {row}.project, 1, {row}.tainted::int, {row}.id,"
        f" {row}.asked_at, {row}.asked_at)"
        " ON CONFLICT (session_id, project) DO UPDATE SET turns = c.turns + 1,"
        " tainted_turns = c.tainted_turns + excluded.tainted_turns,"
        " first_id = CASE WHEN (excluded.first_asked_at, excluded.first_id)"
        " < (c.first_asked_at, c.first_id) THEN excluded.first_id ELSE c.first_id END,"
        " first_asked_at = least(c.first_asked_at, excluded.first_asked_at),"
        " last_asked_at = greatest(c.last_asked_at, excluded.last_asked_at);",
        "INSERT INTO conversation_edits AS e (session_id, project, path, turns)"
        f" SELECT DISTINCT {row}.session_id, {row}.project, path, 1"
        f" FROM {_edited_paths(row)} AS path"
        " ON CONFLICT (session_id, project, path) DO UPDATE SET turns = e.turns + 1;",
    ]


def _removed(row: str) -> list[str]:
    conversation = _same_conversation(row)
    left = f"FROM turns WHERE {conversation}"
    edits = f"{conversation} AND path IN (SELECT * FROM {_edited_paths(row)})"
    return [
        f"DELETE FROM conversation_edits WHERE {edits} AND turns = 1;",
        f"UPDATE conversation_edits SET turns = turns - 1 WHERE {edits};",
        f"DELETE FROM conversations WHERE {conversation} AND turns = 1;",
        "UPDATE conversations SET turns = turns - 1,"
        f" tainted_turns = tainted_turns - {row}.tainted::int,"
        f" first_id = CASE WHEN first_id = {row}.id"
        f" THEN coalesce((SELECT id {left} ORDER BY asked_at, id LIMIT 1), first_id)"
        " ELSE first_id END,"
        f" first_asked_at = CASE WHEN first_id = {row}.id THEN coalesce("
        f"(SELECT asked_at {left} ORDER BY asked_at, id LIMIT 1), first_asked_at)"
        " ELSE first_asked_at END,"
        f" last_asked_at = CASE WHEN last_asked_at = {row}.asked_at THEN coalesce("
        f"(SELECT asked_at {left} ORDER BY asked_at DESC LIMIT 1), last_asked_at)"
        " ELSE last_asked_at END"
        f" WHERE {conversation};",
        f"UPDATE projects SET conversations = conversations - 1 WHERE project = {row}.project"
        f" AND NOT EXISTS (SELECT FROM conversations WHERE {conversation});",
        f"DELETE FROM projects WHERE project = {row}.project AND turns = 1;",
        "UPDATE projects SET turns = turns - 1,"
        f" first_asked_at = CASE WHEN first_asked_at = {row}.asked_at THEN coalesce("
        f"(SELECT min(asked_at) FROM turns WHERE project = {row}.project), first_asked_at)"
        " ELSE first_asked_at END,"
        f" last_asked_at = CASE WHEN last_asked_at = {row}.asked_at THEN coalesce("
        f"(SELECT max(asked_at) FROM turns WHERE project = {row}.project), last_asked_at)"
        " ELSE last_asked_at END"
        f" WHERE project = {row}.project;",
    ]


def _function(name: str, body: list[str]) -> str:
    return (
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        + " ".join(body)
        + " RETURN NULL; END $$"
    )


def trigger_statements() -> list[str]:
    changed = " OR ".join(f"old.{c} IS DISTINCT FROM new.{c}" for c in SUMMED_COLUMNS)
    inserted, deleted, updated = TRIGGERS
    return [
        _function(inserted, _added("new")),
        _function(deleted, _removed("old")),
        _function(updated, [*_removed("old"), *_added("new")]),
        f"CREATE TRIGGER {inserted} AFTER INSERT ON turns FOR EACH ROW"
        f" EXECUTE FUNCTION {inserted}()",
        f"CREATE TRIGGER {deleted} AFTER DELETE ON turns FOR EACH ROW EXECUTE FUNCTION {deleted}()",
        f"CREATE TRIGGER {updated} AFTER UPDATE OF {', '.join(SUMMED_COLUMNS)} ON turns"
        f" FOR EACH ROW WHEN ({changed}) EXECUTE FUNCTION {updated}()",
    ]


def drop_triggers_statements() -> list[str]:
    return [
        *(f"DROP TRIGGER IF EXISTS {name} ON turns" for name in TRIGGERS),
        *(f"DROP FUNCTION IF EXISTS {name}()" for name in TRIGGERS),
    ]


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

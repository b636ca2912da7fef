"""A large forget's batches delete their turns with the summary and lists triggers aside, then
mend what those triggers keep set by set, in the same transaction.

Each deleted turn fired `turns_summary_ad` (seven statements: its conversation, its edited files,
its project) and `best_turns_ad` (its rows in the common words' lists): at a million turns they
were two thirds of the cost of deleting a 55k-turn project beside the full-text index's own
trigger. Since revision 0015 both step aside while the connection's FLAG_FUNCTION says so, as the
summary insert trigger does for a bulk write (summaries.py); `delete_turns` then removes the
batch's list rows and recounts the summaries of the conversations it touched from the turns
they have left, which is what the triggers would have left one row after another (the same
counts, first turn, times and edited files; tests/test_forget_in_bulk.py). The full-text index's
trigger still fires for every row: FTS5 needs each deleted row's text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection

from history.store.sqlite import best_turns, summaries, word_counts

FLAG_FUNCTION = "recall_forgetting_in_bulk"
SUMMARY_TRIGGER = "turns_summary_ad"
LISTS_TRIGGER = f"{best_turns.ROWS}_ad"
COUNTS_TRIGGER = f"{word_counts.TABLE}_ad"
_PAIRS = "temp.recall_forget_pairs"
_IDS = "(SELECT value FROM json_each(:ids))"
_OF_PAIRS = f"(session_id, project) IN (SELECT session_id, project FROM {_PAIRS})"
_LEFT = (
    "SELECT 1 FROM turns AS t WHERE t.session_id = {row}.session_id AND t.project = {row}.project"
)


def trigger_statements(bulk_aware: bool) -> list[str]:
    """The three delete triggers on `turns` besides the full-text index's, stepping aside
    while FLAG_FUNCTION says so (`bulk_aware`, revision 0015) or as before."""
    unless = f"WHEN NOT {FLAG_FUNCTION}() " if bulk_aware else ""
    removed = " ".join(summaries.removed_statements("old"))
    return [
        *drop_statements(),
        f"CREATE TRIGGER {SUMMARY_TRIGGER} AFTER DELETE ON turns {unless}BEGIN {removed} END",
        f"CREATE TRIGGER {LISTS_TRIGGER} AFTER DELETE ON turns {unless}"
        f"BEGIN DELETE FROM {best_turns.ROWS} WHERE turn_id = old.id; END",
        f"CREATE TRIGGER {COUNTS_TRIGGER} AFTER DELETE ON turns {unless}"
        f"BEGIN DELETE FROM {word_counts.TABLE}; END",
    ]


def drop_statements() -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {name}"
        for name in (SUMMARY_TRIGGER, LISTS_TRIGGER, COUNTS_TRIGGER)
    ]


def _mend_statements() -> list[str]:
    """After the batch's turns are gone: the summaries of the conversations in _PAIRS recounted
    from their turns left (backfill's rules, summaries.py), the projects' counts and times."""
    left = _LEFT.format(row="f")
    recount = (
        "SELECT t.session_id, t.project, count(*) AS turns, sum(t.tainted) AS tainted, "
        "min(t.asked_at) AS first_at, max(t.asked_at) AS last_at, "
        "(SELECT x.id FROM turns AS x WHERE x.session_id = t.session_id "
        "AND x.project = t.project ORDER BY x.asked_at, x.id LIMIT 1) AS first_id "
        f"FROM {_PAIRS} AS f JOIN turns AS t ON t.session_id = f.session_id "
        "AND t.project = f.project GROUP BY t.session_id, t.project"
    )
    return [
        f"DELETE FROM conversation_edits WHERE {_OF_PAIRS}",
        "INSERT INTO conversation_edits (session_id, project, path, turns) "
        "SELECT t.session_id, t.project, e.value, count(DISTINCT t.id) "
        f"FROM {_PAIRS} AS f JOIN turns AS t ON t.session_id = f.session_id "
        "AND t.project = f.project, json_each(t.edited) AS e "
        "GROUP BY t.session_id, t.project, e.value",
        # A conversation none of whose turns is left is one fewer in its project.
        "UPDATE projects SET conversations = conversations - g.gone FROM "
        f"(SELECT f.project, count(*) AS gone FROM {_PAIRS} AS f WHERE NOT EXISTS ({left}) "
        "GROUP BY f.project) AS g WHERE projects.project = g.project",
        f"DELETE FROM conversations WHERE {_OF_PAIRS} "
        f"AND NOT EXISTS ({_LEFT.format(row='conversations')})",
        "UPDATE conversations SET turns = c.turns, tainted_turns = c.tainted, "
        "first_id = c.first_id, first_asked_at = c.first_at, last_asked_at = c.last_at "
        f"FROM ({recount}) AS c WHERE conversations.session_id = c.session_id "
        "AND conversations.project = c.project",
        # A project none of whose turns is left keeps its times until the next statement.
        "UPDATE projects SET turns = turns - d.deleted, first_asked_at = coalesce("
        "(SELECT min(asked_at) FROM turns WHERE project = projects.project), first_asked_at), "
        "last_asked_at = coalesce("
        "(SELECT max(asked_at) FROM turns WHERE project = projects.project), last_asked_at) "
        f"FROM (SELECT project, sum(deleted) AS deleted FROM {_PAIRS} GROUP BY project) AS d "
        "WHERE projects.project = d.project",
        f"DELETE FROM projects WHERE turns <= 0 AND project IN (SELECT project FROM {_PAIRS})",
    ]


def delete_turns(conn: Connection, ids: Sequence[int]) -> int:
    """Delete the turns `ids` and everything kept of them, exactly as deleting them one by one
    with every trigger would; the number deleted. The caller's transaction holds it all."""
    if not ids:
        return 0
    flag: summaries.BulkFlag = conn.connection.info[FLAG_FUNCTION]
    given = {"ids": json.dumps(list(ids))}
    run = conn.exec_driver_sql
    run(
        f"CREATE TABLE IF NOT EXISTS {_PAIRS} (session_id TEXT NOT NULL, project TEXT NOT NULL, "
        "deleted INTEGER NOT NULL, PRIMARY KEY (session_id, project))"
    )
    run(f"DELETE FROM {_PAIRS}")
    run(
        f"INSERT INTO {_PAIRS} (session_id, project, deleted) SELECT session_id, project, "
        f"count(*) FROM turns WHERE id IN {_IDS} GROUP BY session_id, project",
        given,
    )
    flag.on = True
    try:
        run(f"DELETE FROM {best_turns.ROWS} WHERE turn_id IN {_IDS}", given)
        deleted = int(run(f"DELETE FROM turns WHERE id IN {_IDS}", given).rowcount)
    finally:
        flag.on = False
    if deleted:
        run(f"DELETE FROM {word_counts.TABLE}")
        for statement in _mend_statements():
            run(statement)
    run(f"DELETE FROM {_PAIRS}")
    return deleted

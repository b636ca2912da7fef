"""The turns that recorded a file among their files, on either SQL backend, newest first.

A path's words, as a phrase, find the candidates through the full-text index (SQLite: FTS5's
`files` column; PostgreSQL: the search vector, whose words of every column are in one list);
where SQLite has no FTS5, the file lists are read whole. Candidates are only that: the caller
keeps those whose recorded paths name the file exactly. Only a candidate's paths are read
here; the whole rows of the few kept are read after (`turns_by_id`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine, bindparam, select, text

from history import domain
from history.query import words
from history.store.models import TURN_COLUMNS, Turn
from history.store.repository import Candidate
from history.store.views import SHOWN_TURN, turn_fields

# A conversation a forget is still deleting is no candidate (views.py).
_PATHS = select(Turn.id, Turn.project, Turn.asked_at, Turn.files, Turn.edited).where(SHOWN_TURN)


def candidates(engine: Engine, full_text: bool, path: str, project: str | None) -> list[Candidate]:
    """Turns (of `project`, or of every one) whose files may hold `path`, newest first."""
    phrase = " ".join(words(path))
    fields: dict[str, object] = {}
    postgres = engine.dialect.name == "postgresql"
    if postgres and phrase:
        found = "search_vector @@ phraseto_tsquery('simple', :phrase)"
        fields["phrase"] = phrase
    elif not postgres and full_text and phrase:
        found = "turns.id IN (SELECT rowid FROM turns_fts WHERE turns_fts MATCH :match)"
        fields["match"] = f'files : "{phrase}"'
    else:
        found = f"{'strpos' if postgres else 'instr'}(turns.files, :needle) > 0"
        fields["needle"] = path
    statement = _PATHS.where(text(found))
    if project is not None:
        statement = statement.where(Turn.project == project)
    statement = statement.order_by(Turn.asked_at.desc(), Turn.id.desc())
    with engine.connect() as conn:
        rows = conn.execute(statement, fields).all()
    return [Candidate(*row) for row in rows]


_BY_ID = select(*TURN_COLUMNS).where(Turn.id.in_(bindparam("ids", expanding=True)), SHOWN_TURN)


def turns_by_id(
    engine: Engine, ids: Sequence[int], project: str | None = None
) -> dict[int, domain.Turn]:
    """The whole stored turns of `ids` (a forgotten one is not there); of `project` alone when
    given."""
    if not ids:
        return {}
    statement = _BY_ID if project is None else _BY_ID.where(Turn.project == project)
    with engine.connect() as conn:
        rows = conn.execute(statement.add_columns(Turn.id), {"ids": list(ids)}).all()
    return {row[-1]: domain.Turn(**turn_fields(row[:-1])) for row in rows}

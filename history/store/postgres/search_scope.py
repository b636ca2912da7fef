"""The turns a search looks in, from the summary rows: their share of all turns and their time
span, so that a part too large to rank whole is ranked in about the newest turns it can afford.

The window is a time: the turns are taken as spread evenly over the scope's span, and the window
starts where about the wanted share of them lies after it. A btree on asked_at (or on project
and asked_at) narrows to the window before any row is read; its bitmap costs about a tenth of a
heap row per turn it holds, so a window holds WINDOW_TURNS turns at most.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, text

from history.store import search_plan
from history.store.search_plan import Window

WINDOW_TURNS = 60_000
_SPAN = text("SELECT sum(turns), min(first_asked_at), max(last_asked_at) FROM projects")
_PROJECT_SPAN = text(
    "SELECT turns, first_asked_at, last_asked_at FROM projects WHERE project = :project"
)


class Scope:
    def __init__(
        self,
        share: float,
        turns: int,
        oldest: datetime | None,
        newest: datetime | None,
        whole: float = 1.0,
    ) -> None:
        self.share, self.turns, self.oldest, self.newest = share, max(turns, 1), oldest, newest
        # The project's share of all turns, before the days window.
        self.whole = whole

    @classmethod
    def of(cls, conn: Connection, project: str | None, since: datetime | None, rows: int) -> Scope:
        found: Any
        if project is None:
            found = conn.execute(_SPAN).one()
        else:
            found = conn.execute(_PROJECT_SPAN, {"project": project}).first()
        if found is None or found[1] is None or rows <= 0:
            return cls(0.0 if project is not None else 1.0, 0, None, None)
        turns, oldest, newest = int(found[0]), found[1], found[2]
        share = min(1.0, turns / rows) if project is not None else 1.0
        whole = share
        if since is not None:
            since = since.astimezone(UTC).replace(tzinfo=None)
            span = (newest - oldest).total_seconds()
            if span > 0 and since > oldest:
                kept = max(0.0, (newest - since).total_seconds() / span)
                share, turns, oldest = share * kept, round(turns * kept), since
        return cls(share, turns, oldest, newest, whole)

    def newest_holding(self, share: float) -> datetime | None:
        """The time after which about `share` of the scope's turns were asked (within what a
        window may hold)."""
        if self.oldest is None or self.newest is None:
            return None
        share = min(1.0, share, WINDOW_TURNS / self.turns)
        return self.newest - (self.newest - self.oldest) * share


class Budget(search_plan.Budget):
    """The rows a search may still rank, and whether a part had to be ranked in a window."""

    def __init__(self, rows: float, scope: Scope) -> None:
        super().__init__(rows)
        self.scope = scope

    def window(self, expected: float, fewest: int) -> Window[datetime]:
        """The turns to rank of a part of about `expected` rows: all of them, or its newest
        turns that fit what is left (at least `fewest` rows' worth)."""
        after = None
        if expected > self.left:
            after = self.scope.newest_holding(max(self.left, fewest) / expected)
            self.cut_short = True
        self.left -= min(expected, max(self.left, fewest))
        # With no span to cut (no summary rows yet), the part is ranked whole, still cut short.
        return Window.whole() if after is None else Window.newest_from(after)

"""Retention: how long turns are kept, and the time before which a project's turns are gone.

A setting keeps turns for a number of days, in every project or in one (a project's own setting
wins over the every-project one). An expiry, by a setting or by `recall retain --older-than`,
leaves a cutoff, its tombstone: the project's turns asked before it were forgotten and an import
does not bring them back. A turn is past its retention when it was asked before the latest of
its project's cutoff, the every-project cutoff, and now less its setting's days; search and the
counts leave such a turn out even before the upkeep has erased it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from history.limits import MAX_DAYS

# How the settings spell "every project".
EVERY = ""
# A search of every project where projects keep turns for different times ranks this many more
# turns than asked for and drops those past their project's retention (history/index.py, and
# history/store/sqlite/direct_search.py for a search through the driver alone).
RETENTION_MARGIN = 40

# What a project's turns may be kept for at the longest; an age is given as `90d`, `12w`, `1y`.
_AGE = re.compile(r"\s*(\d{1,6})\s*([dwy]?)\s*", re.IGNORECASE)
_DAYS_PER_UNIT = {"": 1, "d": 1, "w": 7, "y": 365}
# Older than any turn: the cutoff of a project nothing expires in, where others' do.
NEVER = datetime(1970, 1, 1, tzinfo=UTC)


def parse_age(text: str) -> int:
    """Days in an age such as `90d`, `12w` or `1y` (a bare number is days). Raises ValueError
    for anything else, or for less than a day or more than MAX_DAYS."""
    found = _AGE.fullmatch(text)
    if found is None:
        raise ValueError(text)
    days = int(found.group(1)) * _DAYS_PER_UNIT[found.group(2).lower()]
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(text)
    return days


@dataclass(frozen=True)
class RetentionPolicy:
    """The settings (days kept, by project; None: every project) and the cutoffs expiries left
    (by project; None: every project)."""

    keep_days: dict[str | None, int] = field(default_factory=dict)
    cutoffs: dict[str | None, datetime] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.keep_days or self.cutoffs)

    def days_for(self, project: str) -> int | None:
        """The days a project's turns are kept by the settings; None: for ever."""
        return self.keep_days.get(project, self.keep_days.get(None))

    def setting_cutoff(self, project: str, now: datetime) -> datetime | None:
        """Before this time the project's turns are past its setting; None: no setting."""
        days = self.days_for(project)
        return None if days is None else now - timedelta(days=days)

    def cutoff(self, project: str, now: datetime) -> datetime | None:
        """Before this time the project's turns are gone (or go at the next upkeep)."""
        found = [
            when
            for when in (
                self.cutoffs.get(project),
                self.cutoffs.get(None),
                self.setting_cutoff(project, now),
            )
            if when is not None
        ]
        return max(found) if found else None

    def named(self) -> set[str]:
        """The projects with a setting or a cutoff of their own."""
        return {p for p in [*self.keep_days, *self.cutoffs] if p is not None}

    def default_cutoff(self, now: datetime) -> datetime | None:
        """The cutoff of every project without a setting or cutoff of its own."""
        found = [
            when
            for when in (
                self.cutoffs.get(None),
                None if None not in self.keep_days else now - timedelta(days=self.keep_days[None]),
            )
            if when is not None
        ]
        return max(found) if found else None

    def loosest(self, now: datetime) -> datetime | None:
        """The earliest project's cutoff: a turn asked before it is past its retention in any
        project; None when some project keeps everything."""
        cutoffs = [self.cutoff(project, now) for project in self.named()]
        cutoffs.append(self.default_cutoff(now))
        if any(when is None for when in cutoffs):
            return None
        return min(when for when in cutoffs if when is not None)

    def expired(self, project: str, asked_at: datetime, now: datetime) -> bool:
        found = self.cutoff(project, now)
        return found is not None and asked_at < found

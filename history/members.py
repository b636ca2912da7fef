"""The team's members: their keys, who a request's key is, and the audit trail.

`HistoryIndex.members` is the one instance of an index; every face asks it. Projects are kept
and compared as stored (masked like the turns' own), ids and projects in the audit too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime

from history.access import (
    Access,
    Action,
    AuditEvent,
    Right,
    StoredKey,
    new_key,
    split_key,
)
from history.store.access import AccessRecords, KeyNameTaken
from history.stored_forms import StoredForms

log = logging.getLogger(__name__)

__all__ = ["KeyNameTaken", "Members"]


class Members:
    def __init__(self, records: AccessRecords, ids: StoredForms) -> None:
        self._records, self._ids = records, ids

    def add(
        self, name: str, rights: Iterable[Right], projects: Iterable[str] | None, by: str
    ) -> tuple[StoredKey, str]:
        """A new key and its secret text, to be shown once. Raises KeyNameTaken."""
        stored_projects = None if projects is None else [self.project(p) for p in projects]
        now = datetime.now(UTC)
        stored, secret = new_key(name, rights, stored_projects, now)
        self._records.add_key(stored)
        self.note(AuditEvent(now, by, Action.KEY_ADDED, key_name=name))
        return stored, secret

    def keys(self) -> list[StoredKey]:
        return self._records.keys()

    def revoke(self, name: str, by: str) -> bool:
        now = datetime.now(UTC)
        if not self._records.revoke(name, now):
            return False
        self.note(AuditEvent(now, by, Action.KEY_REVOKED, key_name=name))
        return True

    @property
    def apply(self) -> bool:
        """Whether requests need a key: once any key was added (revoking every key does not
        open the service again)."""
        return self._records.holds_keys()

    def access(self, given: str) -> Access | None:
        """The access of a key's text; None for no live key (unknown, wrong, revoked)."""
        parts = split_key(given)
        if parts is None:
            return None
        stored = self._records.key(parts[0])
        if stored is None or stored.revoked or not stored.matches(parts[1]):
            return None
        return stored.access()

    def project(self, raw: str) -> str:
        """A project as the turns store it. Raises ValueError for an empty one."""
        return self._ids.project(raw)

    def session(self, raw: str) -> str:
        return self._ids.id(raw)

    def note(self, event: AuditEvent) -> None:
        """Add an event to the audit trail; a failure is logged, never raised: the deed it
        records is done."""
        try:
            self._records.write(event)
        except Exception as exc:
            log.warning("the audit trail could not be written: %s", type(exc).__name__)

    def events(self, since: datetime | None = None) -> list[AuditEvent]:
        return self._records.events(since)

"""The access port: members' keys and the audit trail, beside the turns (migration 0018)."""

from __future__ import annotations

import abc
from datetime import datetime

from history.access import AuditEvent, StoredKey


class KeyNameTaken(ValueError):
    """A key (live or revoked) already has this name."""


class AccessRecords(abc.ABC):
    @abc.abstractmethod
    def add_key(self, key: StoredKey) -> None:
        """Store a new key. Raises KeyNameTaken when its name is used."""

    @abc.abstractmethod
    def key(self, key_id: str) -> StoredKey | None: ...

    @abc.abstractmethod
    def keys(self) -> list[StoredKey]:
        """Every key, revoked ones too, oldest first."""

    @abc.abstractmethod
    def revoke(self, name: str, at: datetime) -> bool:
        """Revoke the live key of that name; False when there is none."""

    @abc.abstractmethod
    def holds_keys(self) -> bool:
        """Whether any key was ever added (a revoked one counts)."""

    @abc.abstractmethod
    def write(self, event: AuditEvent) -> None: ...

    @abc.abstractmethod
    def events(self, since: datetime | None) -> list[AuditEvent]:
        """The audit trail (since `since`), oldest first."""


class NoAccessRecords(AccessRecords):
    """A store without the tables (the unit tests' fake): no key, no audit kept."""

    def add_key(self, key: StoredKey) -> None:
        raise NotImplementedError("this store keeps no keys")

    def key(self, key_id: str) -> StoredKey | None:
        return None

    def keys(self) -> list[StoredKey]:
        return []

    def revoke(self, name: str, at: datetime) -> bool:
        return False

    def holds_keys(self) -> bool:
        return False

    def write(self, event: AuditEvent) -> None:
        pass

    def events(self, since: datetime | None) -> list[AuditEvent]:
        return []

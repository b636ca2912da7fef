"""The stored form of an id or a project a caller names, found without the redaction rules when
the store holds it as given.

An id or a workspace path is stored masked only when it held a secret (history/redaction/ids.py),
which almost none does: a search of a project, or opening a turn by its id, first asks the store
whether it holds the name as given, and loads the rules (the longest import of a search) only
when it does not. A name the store holds as given is the one its turns were recorded under;
a masked key always holds `redacted`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from history.projects import project_key

if TYPE_CHECKING:
    from history.redaction.ids import IdMask
    from history.store.repository import TurnRepository


class StoredForms:
    def __init__(
        self, repository: TurnRepository, key_file: Path | None = None, ids: IdMask | None = None
    ) -> None:
        self._repository = repository
        self._key_file = key_file
        self._ids = ids

    def mask(self) -> IdMask:
        """The redaction's masking of ids and projects, loaded on first need."""
        if self._ids is None:
            from history.redaction.ids import IdMask

            self._ids = IdMask(self._key_file)
        return self._ids

    def project(self, raw: str) -> str:
        """The stored key of a project. Raises ValueError when empty."""
        key = project_key(raw)
        if self._repository.holds_project(key):
            return key
        return self.mask().project(raw)

    def scope(self, raw: str) -> str:
        """The key a read (a search, a count, a listing) looks for: `project`'s, but a project
        the store does not hold is not masked either while no stored key is a masked one (each
        holds `redacted`): its masked key would find nothing as its own does. Never for a write,
        which must store the masked key."""
        key = project_key(raw)
        if self._repository.holds_project(key) or not self._repository.holds_masked_projects():
            return key
        return self.mask().project(raw)

    def id(self, raw: str) -> str:
        """The stored form of a turn or session id, were one stored."""
        return self.mask().id(raw)

    def masked_id(self, raw: str) -> str | None:
        """The stored form of an id the store does not hold as given, when it differs."""
        stored = self.mask().id(raw)
        return None if stored == raw else stored

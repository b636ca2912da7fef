"""What was already handed on: the digests of the turn versions sent (or queued), one a line.

`recall hook` and `recall watch` read a whole transcript each time and keep a ledger per
conversation, so only a new or changed turn is sent; `recall push` keeps one per service, so
a push cut short goes on where it stopped. A line is appended in one write: two processes
appending at once do not mix, and a line cut short by a kill is not a digest and is passed
over (its turn is sent again, which the service's turn ids make harmless).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from history.home import ensure_private_dir
from history.remote.body import DIGEST_CHARS

HEX = frozenset("0123456789abcdef")


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._digests: set[str] | None = None

    @classmethod
    def named(cls, folder: Path, name: str) -> Ledger:
        """The ledger of a conversation or a service, its file named by a hash of `name`."""
        return cls(folder / hashlib.sha256(name.encode("utf-8", "replace")).hexdigest()[:32])

    def __contains__(self, digest: object) -> bool:
        return digest in self._loaded()

    def add(self, digest: str) -> None:
        if digest in self._loaded():
            return
        ensure_private_dir(self.path.parent)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, f"{digest}\n".encode())
        finally:
            os.close(fd)
        self._loaded().add(digest)

    def _loaded(self) -> set[str]:
        if self._digests is None:
            try:
                lines = self.path.read_text("ascii", "replace").splitlines()
            except FileNotFoundError:
                lines = []
            self._digests = {line for line in lines if _is_digest(line)}
        return self._digests


def _is_digest(line: str) -> bool:
    return len(line) == DIGEST_CHARS and set(line) <= HEX

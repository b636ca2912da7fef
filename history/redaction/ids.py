"""Ids and projects that held a secret: masked, and still one id each.

A turn id, a session id or a project path can hold a secret as well as any text (a token pasted
as a conversation's name, a repository cloned into a folder named after its access token, a
workspace path with a password in a URL). Such an id is stored masked, with a tag that keeps it
apart from every other id masked the same way and that is the same each time the same id
arrives, so a later import updates it and `forget_session` with the original id still finds it:

    sess-ghp_…  →  redacted~5f0c2a9e41d7~sess-[redacted:github-token]

The tag is an HMAC of the original id under a key kept beside the database (`<name>.id-key`,
mode 0600, made the first time an id needs it). A plain hash would do the same job, but anyone
holding the database could then test guesses against it, and a short password is guessed in
seconds; the key keeps the tag worthless without it. The stored form is itself unchanged by
masking, so giving it back (copied from a search result) finds the same id.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path

from history.home import id_key_path
from history.projects import project_key
from history.redaction import redact

__all__ = ["IdMask", "id_key_path"]

log = logging.getLogger(__name__)

KEY_BYTES = 32
TAG_CHARS = 12


class IdMask:
    """Masks ids and projects for one database; the key is read (or made) on first need."""

    def __init__(self, key_file: Path | None = None) -> None:
        self._key_file = key_file
        self._key: bytes | None = None

    def id(self, raw: str) -> str:
        """The stored form of a turn or session id."""
        masked = redact(raw)
        if masked == raw:
            return raw
        tag = self._tag(raw)
        stored = f"redacted~{tag}~{masked}"
        return stored if redact(stored) == stored else f"redacted~{tag}"

    def project(self, raw: str) -> str:
        """The stored key of a project: `project_key`, masked. Raises ValueError when empty."""
        key = project_key(raw)
        masked = redact(raw)
        if masked == raw and redact(key) == key:
            return key
        # Mask before resolving: resolving turns `postgres://u:pw@h` into `postgres:/u:pw@h`,
        # which no longer reads as a URL.
        tag = self._tag(key)
        stored = redact(project_key(masked)) + "~" + tag
        if redact(stored) == stored and project_key(stored) == stored:
            return stored
        return project_key("/redacted~" + tag)

    def _tag(self, raw: str) -> str:
        digest = hmac.new(self._secret(), raw.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return digest.hexdigest()[:TAG_CHARS]

    def _secret(self) -> bytes:
        if self._key is None:
            self._key = _load_or_make(self._key_file)
        return self._key


def _load_or_make(path: Path | None) -> bytes:
    """The key in `path`, made there (atomically: two processes agree) if there is none yet.
    Without a file to keep it in (a database in memory, a read-only folder) the key lives as
    long as the process."""
    if path is None:
        return secrets.token_bytes(KEY_BYTES)
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("the id key %s cannot be read: %s", path, type(exc).__name__)
        return secrets.token_bytes(KEY_BYTES)
    draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(draft, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
            out.flush()
            os.fsync(out.fileno())
        # Fails if another process made it first: then theirs counts.
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
        return _read(path)
    except OSError as exc:
        log.warning("the id key %s cannot be made: %s", path, type(exc).__name__)
        return secrets.token_bytes(KEY_BYTES)
    finally:
        draft.unlink(missing_ok=True)


def _read(path: Path) -> bytes:
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise OSError(f"{path} is not an id key")
    return key

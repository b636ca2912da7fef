"""Members' keys and what each may do, and the audit trail's events: the core, no database.

A key reads `rk_<id>_<secret>`: the id (12 hex digits) finds its row with one indexed read, and
the secret (32 random bytes) is checked against the row's digest. The digest is HMAC-SHA256 of
the secret under a per-key random salt, compared in constant time. A slow password hash (scrypt,
PBKDF2) protects what people choose; a key's secret is 256 random bits nobody can guess whatever
the hash's speed, so a slow hash would only cost every request its time (one check a request,
not one a login).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from enum import Enum

KEY_PREFIX = "rk_"
ID_HEX_DIGITS = 12
SECRET_BYTES = 32
SALT_BYTES = 16
MAX_NAME_CHARS = 64


class Right(Enum):
    """What a key may do: `read` searches and the views, `record` posts turns, `forget` deletes
    conversations and projects, `admin` reads the audit trail."""

    READ = "read"
    RECORD = "record"
    FORGET = "forget"
    ADMIN = "admin"


class Action(Enum):
    """What an audit event says was done."""

    FORGET_SESSION = "forget-session"
    FORGET_PROJECT = "forget-project"
    RETENTION = "retention"
    KEY_ADDED = "key-added"
    KEY_REVOKED = "key-revoked"


# Who acted when no key was asked for: the service's single token, or a command on this machine.
TOKEN_ACTOR = "token"
LOCAL_ACTOR = "local"
RETENTION_ACTOR = "retention settings"


@dataclass(frozen=True)
class Access:
    """Who is asking and what they may do: `projects` None is every project (stored keys)."""

    actor: str
    rights: frozenset[Right]
    projects: frozenset[str] | None = None

    def may(self, right: Right) -> bool:
        return right in self.rights

    def sees(self, project: str) -> bool:
        """Whether `project` (a stored project key) is one this access may touch."""
        return self.projects is None or project in self.projects


EVERYTHING = frozenset(Right)
LOCAL = Access(LOCAL_ACTOR, EVERYTHING)
TOKEN = Access(TOKEN_ACTOR, EVERYTHING)


@dataclass(frozen=True)
class StoredKey:
    """A key as the database holds it: never its secret, only a salted digest of it."""

    key_id: str
    name: str
    salt: str  # hex
    digest: str  # hex HMAC-SHA256(salt, secret)
    rights: frozenset[Right]
    projects: frozenset[str] | None  # stored project keys; None: every project
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def matches(self, secret: str) -> bool:
        return hmac.compare_digest(digest(bytes.fromhex(self.salt), secret), self.digest)

    def access(self) -> Access:
        return Access(self.name, self.rights, self.projects)


@dataclass(frozen=True)
class AuditEvent:
    """One line of the audit trail: when, who (a key's name, `token`, `local`), what was done
    and to what, how many turns. Never a turn's text."""

    at: datetime
    actor: str
    action: Action
    session_id: str | None = None
    project: str | None = None
    turns: int | None = None
    key_name: str | None = None  # the key a key event was about

    def fields(self) -> dict[str, object]:
        """The event as the audit table's columns name it (the action by its value)."""
        return {**asdict(self), "action": self.action.value}


def digest(salt: bytes, secret: str) -> str:
    return hmac.new(salt, secret.encode("utf-8", "replace"), hashlib.sha256).hexdigest()


def new_key(
    name: str, rights: Iterable[Right], projects: Iterable[str] | None, now: datetime
) -> tuple[StoredKey, str]:
    """A new key: what the database keeps, and the key itself (shown once, never stored)."""
    key_id = secrets.token_hex(ID_HEX_DIGITS // 2)
    secret = secrets.token_urlsafe(SECRET_BYTES)
    salt = secrets.token_bytes(SALT_BYTES)
    stored = StoredKey(
        key_id=key_id,
        name=name,
        salt=salt.hex(),
        digest=digest(salt, secret),
        rights=frozenset(rights),
        projects=None if projects is None else frozenset(projects),
        created_at=now,
    )
    return stored, f"{KEY_PREFIX}{key_id}_{secret}"


def split_key(given: str) -> tuple[str, str] | None:
    """A key's id and secret; None for anything not shaped like a key."""
    if not given.startswith(KEY_PREFIX):
        return None
    key_id, separator, secret = given[len(KEY_PREFIX) :].partition("_")
    if not separator or len(key_id) != ID_HEX_DIGITS or not secret:
        return None
    if any(digit not in "0123456789abcdef" for digit in key_id):
        return None
    return key_id, secret


def parse_rights(text: str) -> frozenset[Right]:
    """`read,record` as rights; raises ValueError naming a word that is none."""
    words = [word.strip().lower() for word in text.split(",") if word.strip()]
    if not words:
        raise ValueError("no right given")
    known = {right.value: right for right in Right}
    for word in words:
        if word not in known:
            raise ValueError(word)
    return frozenset(known[word] for word in words)


def rights_text(rights: Iterable[Right]) -> str:
    """Rights in their one order: read, record, forget, admin."""
    held = set(rights)
    return ",".join(right.value for right in Right if right in held)


AGE_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
MAX_AGE = timedelta(days=36_500)
PERIOD_PATTERN = r"^[0-9]{1,6}[mhd]$"  # what parse_period takes, as a schema says


def parse_period(text: str) -> timedelta:
    """`30m`, `12h`, `7d` as a length of time; raises ValueError for anything else."""
    text = text.strip().lower()
    count, unit = text[:-1], AGE_UNITS.get(text[-1:])
    if unit is None or not count.isascii() or not count.isdigit() or len(count) > 6:
        raise ValueError(text)
    return min(int(count) * unit, MAX_AGE)  # a longer one means as much: since ever

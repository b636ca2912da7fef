"""The access port on SQL, alike on SQLite and PostgreSQL: the `access_keys` and
`audit_events` tables of migration 0018."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import Engine, RowMapping, insert, select, update
from sqlalchemy.exc import IntegrityError

from history.access import Action, AuditEvent, Right, StoredKey, rights_text
from history.store.access import AccessRecords, KeyNameTaken
from history.store.models import AccessKeyRow, AuditEventRow


class SqlAccessRecords(AccessRecords):
    def __init__(self, engine: Engine, writer: Engine) -> None:
        self._engine, self._writer = engine, writer
        # Keys are revoked, never deleted: once one exists, keys apply for good.
        self._seen_a_key = False

    def add_key(self, key: StoredKey) -> None:
        projects = None if key.projects is None else json.dumps(sorted(key.projects))
        row = {
            "key_id": key.key_id,
            "name": key.name,
            "salt": key.salt,
            "digest": key.digest,
            "rights": rights_text(key.rights),
            "projects": projects,
            "created_at": key.created_at,
            "revoked_at": None,
        }
        try:
            with self._writer.begin() as conn:
                taken = conn.execute(
                    select(AccessKeyRow.key_id).where(AccessKeyRow.name == key.name)
                ).first()
                if taken is not None:
                    raise KeyNameTaken(key.name)
                conn.execute(insert(AccessKeyRow), [row])
        except IntegrityError as exc:  # another process added the name meanwhile
            raise KeyNameTaken(key.name) from exc

    def key(self, key_id: str) -> StoredKey | None:
        with self._engine.connect() as conn:
            row = conn.execute(
                select(AccessKeyRow.__table__).where(AccessKeyRow.key_id == key_id)
            ).first()
        return None if row is None else _stored(row._mapping)

    def keys(self) -> list[StoredKey]:
        with self._engine.connect() as conn:
            found = conn.execute(
                select(AccessKeyRow.__table__).order_by(AccessKeyRow.created_at, AccessKeyRow.name)
            )
            return [_stored(row._mapping) for row in found]

    def revoke(self, name: str, at: datetime) -> bool:
        with self._writer.begin() as conn:
            revoked = conn.execute(
                update(AccessKeyRow)
                .where(AccessKeyRow.name == name, AccessKeyRow.revoked_at.is_(None))
                .values(revoked_at=at)
            )
            return bool(revoked.rowcount)

    def holds_keys(self) -> bool:
        if not self._seen_a_key:
            with self._engine.connect() as conn:
                found = conn.execute(select(AccessKeyRow.key_id).limit(1)).first()
            self._seen_a_key = found is not None
        return self._seen_a_key

    def write(self, event: AuditEvent) -> None:
        with self._writer.begin() as conn:
            conn.execute(insert(AuditEventRow), [event.fields()])

    def events(self, since: datetime | None) -> list[AuditEvent]:
        table = AuditEventRow.__table__
        query = select(table).order_by(table.c.at, table.c.id)
        if since is not None:
            query = query.where(table.c.at >= since)
        with self._engine.connect() as conn:
            return [
                AuditEvent(
                    at=row.at,
                    actor=row.actor,
                    action=Action(row.action),
                    session_id=row.session_id,
                    project=row.project,
                    turns=row.turns,
                    key_name=row.key_name,
                )
                for row in conn.execute(query)
            ]


def _stored(row: RowMapping) -> StoredKey:
    get = row.__getitem__
    projects = get("projects")
    return StoredKey(
        key_id=get("key_id"),
        name=get("name"),
        salt=get("salt"),
        digest=get("digest"),
        rights=frozenset(Right(word) for word in get("rights").split(",") if word),
        projects=None if projects is None else frozenset(json.loads(projects)),
        created_at=get("created_at"),
        revoked_at=get("revoked_at"),
    )

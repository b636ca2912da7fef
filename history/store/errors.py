"""What kind of trouble a database error is, whichever backend raised it: a server that could
not be reached (or its driver missing), or a file that is damaged."""

from __future__ import annotations

from sqlalchemy.exc import DatabaseError, OperationalError

from history.store.postgres.engine import DriverMissing
from history.store.sqlite.doctor import damage_reason, is_damage


def trouble(error: BaseException) -> tuple[str, str] | None:
    """("unreachable", "") for a database server that could not be reached (or its driver is
    missing), ("damaged", reason) for a damaged file, None for any other error."""
    if isinstance(error, (OperationalError, DriverMissing)):
        return ("unreachable", "")
    if isinstance(error, DatabaseError) and is_damage(error):
        return ("damaged", damage_reason(error))
    return None

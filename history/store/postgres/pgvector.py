"""Taking up pgvector installed after the database was migrated (`recall migrate --pgvector`).

Migration 0023 makes pgvector's graphs (`turn_neighbours`) only where the server offered the
extension when it ran; a server that gets it later needs that migration run again: undone (it
makes nothing where there is nothing) and done anew, which copies the stored vectors in and
builds the graphs. Only Alembic changes the schema: this runs it."""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

BEFORE = "0022_masking_in_place"  # the revision before 0023, which makes the graphs
_HELD = text("SELECT to_regclass('turn_neighbours') IS NOT NULL")


def graphs_kept(conn: Connection) -> bool:
    """Whether the database keeps its vectors in pgvector's graphs (history/meaning/
    neighbours.py asks them then)."""
    return bool(conn.execute(_HELD).scalar_one())


def _kept(engine: Engine) -> bool:
    with engine.connect() as conn:
        return graphs_kept(conn)


def take_up(engine: Engine) -> bool:
    """Run migration 0023 again where the database keeps no graphs; whether it keeps them now
    (False: the server offers no pgvector, or the role may not create it)."""
    from history.store import migrations

    if not _kept(engine):
        migrations.downgrade(engine, BEFORE)
        migrations.upgrade(engine)
    return _kept(engine)

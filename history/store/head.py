"""The newest revision in alembic/versions (tests/test_migrations.py holds the two together),
in a module of its own: a database already there opens without loading Alembic, and a hook
that writes through the driver alone (history/store/sqlite/direct.py) checks it without
loading SQLAlchemy."""

from typing import Final

SCHEMA_HEAD: Final = "0023_postgres_pgvector_graphs"

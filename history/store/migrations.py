"""The schema's one source: Alembic's revisions, run on a connection the caller holds.

The revisions live in the repository's top-level `alembic/`; the built distributions carry them
as the package `history._migrations` (pyproject.toml maps the folder), so an installed wheel
migrates as a clone does.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from history.store.head import SCHEMA_HEAD as SCHEMA_HEAD
from history.store.sqlite.engine import writer

if TYPE_CHECKING:
    from alembic.config import Config


def migrations_dir() -> Path:
    """Where env.py and versions/ are: inside the installed package, or the clone's alembic/."""
    spec = importlib.util.find_spec("history._migrations")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[2] / "alembic"  # pragma: no cover - a bare checkout


def alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    # Alembic's default stream is sys.stdout as it was when alembic.config was first imported,
    # which (imported lazily) may be a stream closed since: name the one of this call.
    config = Config(stdout=sys.stdout)
    config.set_main_option("script_location", str(migrations_dir()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def at_head(engine: Engine) -> bool:
    with engine.connect() as conn:
        try:
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        except DBAPIError:  # no alembic_version table: never migrated
            return False
        return bool(version == SCHEMA_HEAD)


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    with writer(engine).begin() as conn:
        command.upgrade(alembic_config(conn), revision)


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    with writer(engine).begin() as conn:
        command.downgrade(alembic_config(conn), revision)


# A migration's long step shows a progress bar only past this many rows (a test's few never do).
PROGRESS_FROM_ROWS = 50_000


@contextmanager
def terminal_progress(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """`advance(n)` for a migration's long step: a transient bar on stderr when it is a terminal
    and the step is big (`recall migrate` on a large file), nothing otherwise."""
    if total < PROGRESS_FROM_ROWS:
        yield lambda done: None
        return
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda done: None
        return
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda done: progress.advance(task, done)

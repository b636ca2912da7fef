from __future__ import annotations

import atexit
import gc
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

from history import HistoryIndex
from history.store.sqlite import fts
from tests.helpers import postgres
from tests.helpers.app_caches import forget_classified_endpoints
from tests.helpers.browser import chromium
from tests.helpers.templates import migrated_copy

if TYPE_CHECKING:
    from playwright.sync_api import Browser

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
# The suite reads the CLI's English, whatever the machine's locale; language tests set their own.
os.environ["RECALL_LANGUAGE"] = "en"


BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_backends: the module's `index` tests run on SQLite and on PostgreSQL"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker(
        "both_backends"
    ):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


# One worker runs every PostgreSQL test, one after another (`--dist loadgroup`, Makefile): a
# scrub's rewrite keeps every row that a transaction of the server older than its forget could
# see (its own snapshot counts them, whatever their database), so PostgreSQL tests on several
# workers hold back each other's scrubs for as long as their transactions last. Told apart by
# their ids, the only thing the scheduler sees: every PostgreSQL test names it (its module, its
# name or its `postgresql` parameter).
def uses_postgres(nodeid: str) -> bool:
    """A PostgreSQL test, by its id: not one whose parameter is a text that names it (a URL
    to redact, a secret's kind), nor a unit test (no database)."""
    if nodeid.startswith("tests/unit/"):
        return False
    name, _, parameters = nodeid.partition("[")
    return "postgres" in name or bool(
        {"postgres", "postgresql"} & set(re.split(r"[-\]]", parameters))
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped]

    class PostgresTogether(LoadGroupScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return "postgresql" if uses_postgres(nodeid) else nodeid

    return PostgresTogether(config, log)


# That one worker's chain of PostgreSQL tests is the run's longest, its work shared with the
# server (alone: 166-185 s, ~80 s of CPU in the worker and its processes, ~90 s in the server);
# beside the other workers it took 291 s of a 304 s run. So every other worker yields the CPU to
# it: a worker lowers its own priority (and its children's) at its first test that is not a
# PostgreSQL test; the chain's worker only once the chain is done. Measured: the chain 248 s and
# the run 290 s in one run; in clean-clone CI 314 s against 317 s the same day, within this
# host's noise. (Priority can only be lowered, and by anyone; the timing tests run alone, after.)
# Since the chain's tests open faster (tests/helpers/postgres.py: 138 s alone) it takes ~224 s of
# a ~255 s run, and the run is bound by the CPU of all the tests: ~470 CPU-seconds on 2 cores.
YIELDING_NICENESS = 10
_yielding = False


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist's controller, for each worker.) Tell the workers the PostgreSQL tests are grouped."""
    node.workerinput["recall_postgres_together"] = node.config.getvalue("dist") == "loadgroup"


def pytest_runtest_setup(item: pytest.Item) -> None:
    global _yielding
    if _yielding or uses_postgres(item.nodeid):
        return
    if getattr(item.config, "workerinput", {}).get("recall_postgres_together"):
        os.nice(YIELDING_NICENESS)
    _yielding = True


# The garbage collector of a test process: what the imports and the collection made lives as
# long as the run, so it is frozen out of the collector's way, and young objects are collected
# 20,000 at a time rather than 700 (on tests/integration/sqlite, one process: the collector's
# time went from ~13 s to ~5 s of a ~135 s run). At exit, everything is frozen: the interpreter
# otherwise walks the whole heap again while it unloads the modules (seconds per worker).
def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


atexit.register(gc.freeze)


def pytest_sessionfinish(session: pytest.Session) -> None:
    postgres.drop_databases()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """`sqlite`, or `postgresql` in modules marked both_backends (their second run)."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database_url(backend: str, tmp_path: Path) -> str:
    """Where a test's index lives: a file under tmp_path, or an emptied PostgreSQL database."""
    if backend == "postgresql":
        postgres.require_server()
        return postgres.emptied_url()
    return str(migrated_copy(tmp_path / "history.db"))


@pytest.fixture
def postgres_url() -> str:
    postgres.require_server()
    return postgres.emptied_url()


@pytest.fixture(scope="module")
def postgres_url_for_module() -> Iterator[str]:
    """A database of its own for a module's tests to share."""
    postgres.require_server()
    yield from postgres.fresh_url()


@pytest.fixture
def fresh_postgres_url() -> Iterator[str]:
    postgres.require_server()
    yield from postgres.fresh_url()


@pytest.fixture
def empty_postgres_url() -> Iterator[str]:
    """A new database no revision has touched (a copy at head taken down to base costs 3-5x)."""
    yield from postgres.empty_url()


@pytest.fixture
def index(database_url: str) -> Iterator[HistoryIndex]:
    opened = HistoryIndex.open(database_url)
    yield opened
    opened.close()


@pytest.fixture(params=["fts5", "like"])
def any_index(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HistoryIndex]:
    """An index on each search path: FTS5, and the LIKE fallback of an SQLite without it."""
    if request.param == "like":
        monkeypatch.setattr(fts, "fts5_available", lambda conn: False)
    path = migrated_copy(tmp_path / "history.db", full_text=request.param == "fts5")
    opened = HistoryIndex.open(path)
    assert opened.full_text is (request.param == "fts5")
    yield opened
    opened.close()


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No test may touch the user's real ~/.recall.
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "recall-home"))


@pytest.fixture(autouse=True)
def _apps_end_with_their_test() -> Iterator[None]:
    yield
    forget_classified_endpoints()


@pytest.fixture
def project(tmp_path: Path) -> str:
    """A workspace folder that exists, for the tools' project."""
    (tmp_path / "proj").mkdir()
    return str(tmp_path / "proj")


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC+05:30 (a POSIX TZ string: no tz database needed)."""
    monkeypatch.setenv("TZ", "XST-5:30")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium for a module's page tests (tests/helpers/browser.py)."""
    with chromium() as launched:
        yield launched

"""The suite's own hygiene (tests/helpers/app_caches.py): an app a test made does not outlive it."""

from __future__ import annotations

import gc
import weakref

from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from tests.helpers.app_caches import forget_classified_endpoints
from tests.helpers.fakes import FakeTurnRepository
from tests.helpers.loopback import LOOPBACK


def test_an_app_and_its_index_are_freed_once_the_endpoint_caches_are_emptied() -> None:
    """Regression: FastAPI's caches of classified endpoints kept every app a test made, and the
    index its endpoints close over, to the end of the run (~1.3M objects in a worker, walked by
    every full garbage collection)."""
    index = HistoryIndex(FakeTurnRepository(), full_text=False)
    app = create_app(index)
    with TestClient(app, base_url=LOOPBACK) as client:
        assert client.get("/healthz").status_code == 200
    made, opened = weakref.ref(app), weakref.ref(index)
    del app, client, index
    forget_classified_endpoints()
    gc.collect()
    assert made() is None and opened() is None

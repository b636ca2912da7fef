"""Headless Chromium for the page's tests: Debian's `chromium`, driven by Playwright.

Playwright's own browser download cannot work here, so it launches the system's Chromium
(`RECALL_TEST_CHROMIUM`, default /usr/bin/chromium). Where it is missing the tests skip, saying
why; under CI=true they fail instead (.ci/run installs it), so CI always runs them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from tests.helpers.unavailable import cannot_run

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Request

CHROMIUM = Path(os.environ.get("RECALL_TEST_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = Path(os.environ.get("RECALL_PAGE_SCREENSHOTS", "/tmp/recall-page-screenshots"))


def require_chromium() -> None:
    """Skip (fail under CI=true) when there is no browser to test in."""
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "Playwright for Python is not installed (pip install -e '.[dev]')"
    if missing is None and not os.access(CHROMIUM, os.X_OK):
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if missing:
        cannot_run(missing, "the page's browser tests must run")


@contextmanager
def chromium() -> Iterator[Browser]:
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield browser
        finally:
            browser.close()


class Requests:
    """Every request a browser context made, to check where they went."""

    def __init__(self, context: BrowserContext) -> None:
        self.urls: list[str] = []
        self.headers: list[dict[str, str]] = []
        context.on("request", self._seen)

    def _seen(self, request: Request) -> None:
        self.urls.append(request.url)
        self.headers.append(request.headers)

    def hosts(self) -> set[str]:
        return {urlsplit(url).hostname or url for url in self.urls}


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"

"""The page of a `recall serve` that has a token: the page itself loads without it, asks for
it once, tells a refused one, and sends it as the API expects on every call."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from history import HistoryIndex
from tests.helpers.browser import Requests, chromium, screenshot_path
from tests.helpers.serving import recall_serve

TOKEN = "page-test-token-8c1f"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record(
        turn_id="t-1", session_id="conv-1", project="/work/shop",
        asked="Where is the login rate limit?", answered="In middleware/limits.py.",
    )  # fmt: skip
    index.close()
    return tmp_path


def test_the_page_asks_for_the_token_once_and_sends_it(home: Path) -> None:
    from playwright.sync_api import expect

    with recall_serve(home, env={"RECALL_TOKEN": TOKEN}) as server, chromium() as browser:
        assert httpx.get(server.base).status_code == 200  # the page, without the token
        assert httpx.get(f"{server.base}/api/code/projects").status_code == 401
        context = browser.new_context(locale="en-US")
        seen = Requests(context)
        page = context.new_page()
        page.goto(server.base)
        dialog = page.locator("#token-dialog")
        expect(dialog).to_be_visible()
        expect(page.locator("#token")).to_be_focused()
        expect(page.locator("#token-wrong")).to_be_hidden()
        page.keyboard.type("not-the-token")
        page.keyboard.press("Enter")
        expect(page.locator("#token-wrong")).to_be_visible()  # refused, asked again
        page.screenshot(path=screenshot_path("page-token"))
        page.locator("#token").fill(TOKEN)
        page.keyboard.press("Enter")
        expect(dialog).to_be_hidden()
        expect(page.locator("#results .conversation-card")).to_have_count(1)
        page.reload()  # kept for the tab: not asked again
        expect(page.locator("#results .conversation-card")).to_have_count(1)
        expect(dialog).to_be_hidden()
        context.close()
    api_calls = [
        headers.get("authorization")
        for url, headers in zip(seen.urls, seen.headers, strict=True)
        if "/api/" in url
    ]
    assert api_calls.count(None) == 1  # the first, answered 401; then asked
    assert api_calls.count("Bearer not-the-token") == 1
    assert api_calls.count(f"Bearer {TOKEN}") >= 3
    assert seen.hosts() == {"127.0.0.1"}

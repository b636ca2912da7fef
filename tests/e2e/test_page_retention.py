"""The page and the service show the retention policy: how long the turns of the project in
view (or of every project) are kept, from the settings `recall retain --set` stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from tests.helpers.serving import Server, recall_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser

SHOP, BLOG = "/work/shop", "/work/blog"


def seed(home: Path, settings: bool = True) -> HistoryIndex:
    index = HistoryIndex.open(home / "history.db")
    for project in (SHOP, BLOG):
        index.record(turn_id=f"t{project}", session_id=f"s{project}", project=project,
                     asked="where is the login limit?", answered="in the middleware")  # fmt: skip
    if settings:
        index.set_retention(180)
        index.set_retention(30, project=SHOP)
    return index


def test_the_projects_list_carries_the_retention_settings(tmp_path: Path) -> None:
    index = seed(tmp_path)
    with TestClient(create_app(index)) as client:
        kept = client.get("/api/code/projects").json()["retention"]
    assert sorted(kept, key=str) == sorted(
        [{"project": None, "days": 180}, {"project": SHOP, "days": 30}], key=str
    )
    index.unset_retention()
    index.unset_retention(project=SHOP)
    with TestClient(create_app(index)) as client:
        assert client.get("/api/code/projects").json()["retention"] == []
    index.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("retention-home")
    seed(home).close()
    with recall_serve(home) as running:
        yield running


def test_the_page_says_how_long_the_turns_in_view_are_kept(
    browser: Browser, server: Server
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(locale="en-US", timezone_id="UTC")
    page = context.new_page()
    page.goto(server.base)
    said = page.locator("#retention")
    expect(said).to_have_text(
        "Turns here are kept 180 days: older ones are forgotten for good (recall retain)."
    )
    page.select_option("#project", SHOP)
    expect(said).to_contain_text("kept 30 days")
    page.select_option("#project", BLOG)
    expect(said).to_contain_text("kept 180 days")
    context.close()

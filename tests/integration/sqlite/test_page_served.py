"""`GET /` and its assets, in process: what the page is made of and how it is served."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.i18n import LANGUAGES
from history.web.messages import MESSAGES, messages
from history.web.page import LANGUAGE_NAMES
from tests.helpers.fakes import FakeTurnRepository
from tests.helpers.loopback import LOOPBACK

STATIC = resources.files("history.web").joinpath("static")


@pytest.fixture
def client() -> TestClient:
    return TestClient(
        create_app(HistoryIndex(FakeTurnRepository(), full_text=False)), base_url=LOOPBACK
    )


def page_data(html: str) -> dict[str, object]:
    found = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', html)
    assert found, html[:500]
    data: dict[str, object] = json.loads(found[1])
    return data


def test_the_page_and_its_files_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert page_data(page.text)["messages"] == MESSAGES
    for name, kind in (
        ("app.js", "text/javascript"),
        ("app.css", "text/css"),
        ("markdown.js", "text/javascript"),
        ("vendor/marked.umd.js", "text/javascript"),
        ("vendor/purify.min.js", "text/javascript"),
    ):
        asset = client.get(f"/page/{name}")
        assert asset.status_code == 200 and asset.headers["content-type"].startswith(kind)
        assert asset.text == STATIC.joinpath(*name.split("/")).read_text("utf-8")
    assert "/" not in client.get("/openapi.json").json()["paths"]


def test_no_file_of_the_page_names_another_address() -> None:
    for name in ("index.html", "app.js", "app.css", "markdown.js"):  # vendor/: names in comments
        text = STATIC.joinpath(name).read_text("utf-8")
        assert not re.search(r"(https?:)?//[\w.-]+\.\w+|@import|url\(", text), name


@pytest.mark.parametrize(
    ("url", "accept", "language"),
    [
        ("/", None, "en"),
        ("/", "fr-CA,fr;q=0.9,en;q=0.5", "fr"),
        ("/", "pt-BR,pt;q=0.9", "pt-BR"),
        ("/", "zh-Hans-CN,zh;q=0.9", "zh-CN"),
        ("/?lang=ja", "de", "ja"),  # the picker's choice first
        ("/?lang=xx", "de", "de"),
        ("/?lang=xx", None, "en"),
    ],
)
def test_the_page_speaks_the_chosen_language_else_the_browser_s(
    client: TestClient, url: str, accept: str | None, language: str
) -> None:
    page = client.get(url, headers={"Accept-Language": accept} if accept else {})
    assert f'<html lang="{language}">' in page.text
    assert page_data(page.text)["language"] == language


def test_the_messages_cannot_close_the_script_they_sit_in(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(MESSAGES, "title", "</script><script>alert(1)</script>")
    page = client.get("/")
    assert "<script>alert(1)" not in page.text
    assert page_data(page.text)["messages"]["title"] == MESSAGES["title"]  # type: ignore[index]


def test_with_a_token_the_page_opens_but_the_history_does_not() -> None:
    guarded = TestClient(
        create_app(HistoryIndex(FakeTurnRepository(), full_text=False), token="s3cret"),
        base_url=LOOPBACK,
    )
    assert guarded.get("/").status_code == 200
    assert guarded.get("/page/app.js").status_code == 200
    assert guarded.get("/api/code/projects").status_code == 401
    assert guarded.get("/page/other.js").status_code == 401


def test_the_picker_offers_every_language_and_each_has_the_whole_table(client: TestClient) -> None:
    assert tuple(LANGUAGE_NAMES) == LANGUAGES
    for language in LANGUAGES:
        data = page_data(client.get(f"/?lang={language}").text)
        assert data["languages"] == LANGUAGE_NAMES
        assert data["messages"] == messages(language)
        assert set(messages(language)) == set(MESSAGES)
        translated = language == "en" or messages(language)["heading"] != MESSAGES["heading"]
        assert translated, language

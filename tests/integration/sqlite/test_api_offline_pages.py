"""Docs pages that work offline: no page the service serves refers to an address outside it,
and everything a page loads is served by the service itself."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlparse

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from tests.helpers.loopback import LOOPBACK

BASE = LOOPBACK
# Where an HTML page names another resource: attributes, CSS url(), and any absolute URL in its
# scripts or text.
REFERENCES = re.compile(
    r"""(?:src|href|action|spec-url)\s*=\s*["']([^"']+)["']"""
    r"""|url\(\s*["']?([^"')]+)["']?\s*\)"""
    r"""|((?:https?:)?//[\w.-]+[^\s"'<>)]*)"""
)


def html_pages(client: TestClient) -> dict[str, str]:
    """Every GET route without path parameters that answers HTML."""
    pages = {}
    for route in client.app.routes:  # type: ignore[attr-defined]
        if not isinstance(route, APIRoute) or "GET" not in (route.methods or ()):
            continue
        if "{" in route.path:
            continue
        answer = client.get(route.path)
        if answer.headers.get("content-type", "").startswith("text/html"):
            pages[route.path] = answer.text
    return pages


def test_every_served_page_refers_only_to_the_service_itself(index: HistoryIndex) -> None:
    client = TestClient(create_app(index), base_url=BASE)
    pages = html_pages(client)
    assert {"/docs", "/redoc", "/docs/oauth2-redirect"} <= set(pages)
    loaded = set()
    for path, html in pages.items():
        for groups in REFERENCES.findall(html):
            reference = next(part for part in groups if part)
            address = urlparse(urljoin(f"{BASE}{path}", reference))
            assert address.netloc == urlparse(BASE).netloc, f"{path} refers to {reference}"
            loaded.add(address.path)
    assert "/static-offline-docs/swagger-ui-bundle.js" in loaded
    assert "/static-offline-docs/redoc.standalone.js" in loaded
    for asset in sorted(loaded):
        if asset.startswith("/static-offline-docs/"):
            assert client.get(asset).status_code == 200, asset


def test_the_swagger_page_asks_no_validator_elsewhere(index: HistoryIndex) -> None:
    page = TestClient(create_app(index), base_url=LOOPBACK).get("/docs").text
    assert '"validatorUrl": null' in page

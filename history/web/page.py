"""`GET /` and the page's two assets. Open without the token: they hold no history, only the
page, which asks for the token when the API answers 401 and sends it on every API call.

The messages for the reader's language (`?lang=`, else Accept-Language) go into index.html as
JSON at request time, so the page needs no further request to speak. The Content-Security-Policy
lets the page load and call nothing but this service.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import HTMLResponse, Response

from history.i18n import from_accept_language, supported
from history.web.messages import messages

SCRIPT, STYLE = "text/javascript; charset=utf-8", "text/css; charset=utf-8"
ASSETS = {
    "app.js": SCRIPT,
    "app.css": STYLE,
    "markdown.js": SCRIPT,
    "vendor/marked.umd.js": SCRIPT,
    "vendor/purify.min.js": SCRIPT,
}
PAGE_PATHS = frozenset({"/", *(f"/page/{name}" for name in ASSETS)})
# The picker names each language of history.i18n.LANGUAGES in itself (docs/glossary.toml's names).
LANGUAGE_NAMES = {
    "en": "English",
    "pt-BR": "Português (Brasil)",
    "es": "Español",
    "fr": "Français",
    "de": "Deutsch",
    "it": "Italiano",
    "ja": "日本語",
    "zh-CN": "简体中文",
    "ko": "한국어",
    "ru": "Русский",
}
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
DATA_SLOT = "<!--page-data-->"


@cache
def _asset(name: str) -> str:
    return resources.files("history.web").joinpath("static", *name.split("/")).read_text("utf-8")


def choose_language(requested: str | None, accept_language: str | None) -> str:
    """The picker's choice when it names a language of the page, else the browser's."""
    return supported(requested) or from_accept_language(accept_language)


def page_data(language: str) -> str:
    """The JSON the page starts from, safe inside a <script> element."""
    data = {
        "language": language,
        "languages": LANGUAGE_NAMES,
        "messages": messages(language),
    }
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset_endpoint(name: str, media_type: str) -> Callable[[], Response]:
    def asset() -> Response:
        return Response(_asset(name), media_type=media_type, headers=HEADERS)

    return asset


def router() -> APIRouter:
    page = APIRouter(include_in_schema=False)

    @page.get("/", response_class=HTMLResponse)
    def index(
        lang: Annotated[str | None, Query(max_length=35)] = None,
        accept_language: Annotated[str | None, Header(max_length=500)] = None,
    ) -> HTMLResponse:
        language = choose_language(lang, accept_language)
        html = _asset("index.html").replace('lang="en"', f'lang="{language}"', 1)
        html = html.replace(DATA_SLOT, page_data(language), 1)
        return HTMLResponse(html, headers=HEADERS)

    for name, media_type in ASSETS.items():
        page.add_api_route(f"/page/{name}", _asset_endpoint(name, media_type), methods=["GET"])
    return page

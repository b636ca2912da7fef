"""The service's sentences in the language a request asks for (its Accept-Language header; none
or one we do not speak: English). The `api` domain of the catalogues holds them: every `detail`
of an error, the sentences of our own 422 reasons, and a search's `message`.

A sentence is raised in English, as a constant marked with `N_` or as a `Detail` (a template and
its fields); the answer is translated on the way out, so the code that raises it needs no
request. An answer in another language says so (`Content-Language`), and every answer that may
be translated varies by `Accept-Language`.
"""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.exception_handlers import http_exception_handler
from starlette.datastructures import Headers

from history.i18n import ENGLISH, from_accept_language, translator

DOMAIN = "api"


class Detail(str):
    """An English sentence made from a template and its fields; translated, it is the
    template's translation with the same fields."""

    template: str
    fields: dict[str, Any]

    def __new__(cls, template: str, **fields: Any) -> Detail:
        made = super().__new__(cls, template.format(**fields))
        made.template, made.fields = template, fields
        return made

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles keep the template
        return (_detail, (self.template, self.fields))


def _detail(template: str, fields: dict[str, Any]) -> Detail:
    return Detail(template, **fields)


def language_of(headers: Headers) -> str:
    return from_accept_language(headers.get("accept-language"))


def translated(text: str, language: str) -> str:
    """`text` (a marked constant or a `Detail`) in `language`; a sentence the catalogue does not
    hold (a library's own) stays as it is."""
    messages = translator(DOMAIN, language)
    if isinstance(text, Detail):
        return messages.gettext(text.template).format(**text.fields)
    return messages.gettext(text)


def say_language(response: Response, language: str) -> None:
    response.headers["Vary"] = "Accept-Language"
    if language != ENGLISH:
        response.headers["Content-Language"] = language


async def http_error(request: Request, exc: Exception) -> Response:
    """FastAPI's answer to an HTTPException, its `detail` in the request's language."""
    assert isinstance(exc, HTTPException)
    language = language_of(request.headers)
    if isinstance(exc.detail, str):
        exc = HTTPException(exc.status_code, translated(exc.detail, language), exc.headers)
    response = await http_exception_handler(request, exc)
    say_language(response, language)
    return response

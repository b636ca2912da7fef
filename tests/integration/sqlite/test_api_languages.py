"""The service's sentences in the language the request asks for: every error `detail` (401,
404, 413, 415, 503 and our own 422 reasons) and a search's `message`, by Accept-Language, with
Content-Language saying so. No header, or a language not spoken here: English, as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from history import HistoryIndex
from history.api import create_app
from history.api.app import NO_PROJECT, NO_WORDS, NOT_RECORDED
from history.api.auth import UNAUTHORIZED
from history.api.languages import translated
from history.api.limits import NOT_JSON, TOO_LARGE
from history.api.views import NO_TURN
from history.i18n import LANGUAGES
from history.paging import BAD_CURSOR
from tests.helpers.loopback import LOOPBACK

TRANSLATED = LANGUAGES[1:]
# A question of function words only, in each language: the search has nothing to look for.
FUNCTION_WORDS_ONLY = {
    "en": "what did we do about it",
    "pt-BR": "o que foi isso para nós",
    "es": "qué fue eso para nosotros",
    "fr": "qu'est-ce que c'était pour nous",
    "de": "was war das mit dem",
    "it": "che era questo per noi",
    "ja": "これは何ですか",
    "zh-CN": "这个是什么",
    "ko": "그것은 무엇인가요",
    "ru": "что это было для нас",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    index = HistoryIndex.open(tmp_path_factory.mktemp("home") / "history.db")
    with TestClient(create_app(index), base_url=LOOPBACK) as client:
        yield client
    index.close()


def in_(language: str, english: str) -> str:
    """What the catalogue says for `english` (a marked constant or a Detail) in `language`."""
    return translated(english, language)


@pytest.mark.parametrize("language", TRANSLATED)
def test_error_details_speak_the_language_asked_for(client: TestClient, language: str) -> None:
    asked = {"Accept-Language": f"nl;q=0.9, {language};q=0.8, en;q=0.1"}
    cases = [
        (client.delete(f"/api/code/sessions/never-{language}", headers=asked), 404, NOT_RECORDED),
        (client.delete("/api/code/projects?project=/nowhere", headers=asked), 404, NO_PROJECT),
        (client.get("/api/code/turns/nowhere", headers=asked), 404, NO_TURN),
        (client.post("/api/code/turns", content=b"{}", headers=asked), 415, NOT_JSON),
    ]
    for answer, status, english in cases:
        assert answer.status_code == status
        detail = answer.json()["detail"]
        assert detail == in_(language, english) != english, (language, detail)
        assert answer.headers["content-language"] == language
        assert "Accept-Language" in answer.headers["vary"]
    too_large = client.post(
        "/api/code/turns",
        content=b"{}",
        headers={**asked, "Content-Type": "application/json", "Content-Length": str(10**9)},
    )
    assert too_large.status_code == 413
    assert (
        too_large.json()["detail"] != TOO_LARGE
        and str(TOO_LARGE.fields["limit"]) in (too_large.json()["detail"])
    )
    bad_cursor = client.get("/api/code/sessions?before=garbage", headers=asked)
    assert bad_cursor.status_code == 422
    assert bad_cursor.json()["detail"][0]["msg"] == in_(language, BAD_CURSOR) != BAD_CURSOR


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_search_of_function_words_says_so_in_the_language(
    client: TestClient, language: str
) -> None:
    answer = client.get(
        "/api/code/history",
        params={"q": FUNCTION_WORDS_ONLY[language]},
        headers={"Accept-Language": language},
    )
    assert answer.status_code == 200
    assert answer.json()["terms"] == [] and answer.json()["hits"] == []
    assert answer.json()["message"] == in_(language, NO_WORDS)
    assert (answer.json()["message"] == NO_WORDS) == (language == "en")


@pytest.mark.parametrize("header", [None, "", "nl-NL, sv;q=0.5", "*", "en-GB", "xx;q=abc"])
def test_without_a_language_spoken_here_the_details_stay_english(
    client: TestClient, header: str | None
) -> None:
    headers = {} if header is None else {"Accept-Language": header}
    answer = client.delete(f"/api/code/sessions/never-{header!r}", headers=headers)
    assert answer.status_code == 404 and answer.json() == {"detail": NOT_RECORDED}
    assert "content-language" not in answer.headers


def test_a_stranger_is_refused_in_the_language_asked_for(tmp_path: Path) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    try:
        with TestClient(create_app(index, token="s3cret"), base_url=LOOPBACK) as client:
            german = client.get("/api/code/history?q=x", headers={"Accept-Language": "de-DE"})
            english = client.get("/api/code/history?q=x")
    finally:
        index.close()
    assert german.status_code == english.status_code == 401
    assert english.json() == {"detail": UNAUTHORIZED}
    assert german.json()["detail"] == in_("de", UNAUTHORIZED) != UNAUTHORIZED

"""A query of only function words, in any of the ten languages, finds nothing and says so: the
turn holding those very words is not returned, and the tool asks, in its language, for a
distinctive word. The same words beside a real one find that turn."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from history import HistoryIndex
from history.function_words import only_function_words
from history.i18n import Messages
from history.query import terms
from history.tools.recall_history import RecallHistoryTool

# language: (a question of function words only, a real word of the language, a turn's text
# holding both)
QUERIES = {
    "en": ("what did we do about it", "invoice"),
    "pt-BR": ("o que foi isso para nós", "fatura"),
    "es": ("qué fue eso para nosotros", "factura"),
    "fr": ("qu'est-ce que c'était pour nous", "facture"),
    "de": ("was war das mit dem", "Rechnung"),
    "it": ("che era questo per noi", "fattura"),
    "ja": ("これは何ですか", "請求書"),
    "zh-CN": ("这个是什么", "发票"),
    "ko": ("그것은 무엇인가요", "청구서"),
    "ru": ("что это было для нас", "документация"),
}
NO_WORD = (
    "query {value} has no word to search for (common words like 'the' are ignored); add a "
    "distinctive one: a function, file, error or topic name."
)


@pytest.mark.parametrize("language", list(QUERIES))
def test_a_query_of_function_words_finds_nothing_and_says_so(
    index: HistoryIndex, project: str, language: str
) -> None:
    question, word = QUERIES[language]
    index.record(
        turn_id="t1",
        session_id="conv-1",
        project=project,
        asked=f"{question} {word}",
        answered=f"{question}? {word}.",
        asked_at=datetime.now(UTC) - timedelta(days=1),
    )
    assert terms(question) == []
    assert list(index.search(question, project)) == []
    answer = RecallHistoryTool(index, project, language=language).run(question)
    _ = Messages("tool", language)
    assert answer == "error: " + _(NO_WORD, value=f'"{question}"')
    assert [hit.turn_id for hit in index.search(f"{question} {word}", project)] == ["t1"]
    found = RecallHistoryTool(index, project, language=language).run(f"{question} {word}")
    assert not found.startswith("error:") and "t1" in found


@pytest.mark.parametrize(
    "run",
    ["の", "これは", "何ですか", "我们的", "这些是什么", "우리가", "저는", "그리고", "어떻게"],
)
def test_runs_of_function_words_in_scripts_without_spaces(run: str) -> None:
    assert only_function_words(run)


@pytest.mark.parametrize(
    ("run", "kept"),
    [
        ("関数", ["関数"]),
        ("ログインの関数", ["ログ", "グイ", "イン", "ンの", "の関", "関数"]),
        ("这个bug", ["bug"]),
        ("도로", ["도로"]),  # a road: 도 and 로 are particles, which only follow a word
        ("중요", ["중요"]),
        ("의", ["의"]),  # a particle alone is not taken for one
        ("함수를", ["함수", "수를"]),
    ],
)
def test_a_run_with_a_real_word_is_searched_as_before(run: str, kept: list[str]) -> None:
    assert terms(run) == kept

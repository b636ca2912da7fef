"""Readying a service's searches (history/warm_up.py): which searches, and a failure that
stays a log line."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest
from sqlalchemy.exc import OperationalError

from history import warm_up
from history.domain import ConversationSummary


def _conversation(asked: str, project: str = "/p") -> ConversationSummary:
    now = datetime.now(UTC)
    return ConversationSummary(
        session_id="s",
        project=project,
        first_asked=asked,
        first_asked_at=now,
        last_asked_at=now,
        turns=1,
        tainted_turns=0,
        edited=(),
    )


def test_the_warm_up_searches_one_to_four_words_of_each_newest_conversation() -> None:
    asked = "why does the login cache drop the session token after retry"
    recent = [_conversation(asked, f"/p{n}") for n in range(5)]
    queries = warm_up.queries(recent)
    assert [len(words.split()) for words, _ in queries] == [1, 2, 3, 4, 1]
    assert [project for _, project in queries] == [f"/p{n}" for n in range(5)]
    assert queries[1][0] == "login cache"


def test_a_conversation_of_function_words_only_is_not_searched() -> None:
    queries = warm_up.queries([_conversation("and the of"), _conversation("cache", "/q")])
    assert queries == [("cache", "/q")]


class _ServerGone:
    def warm_searches(self) -> None:
        raise OperationalError("SELECT 1", {}, Exception("server closed the connection"))


def test_a_warm_up_that_fails_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="history.warm_up"):
        warm_up.in_background(_ServerGone()).join(10)  # type: ignore[arg-type]
    assert [r.getMessage() for r in caplog.records] == [
        "searches not readied before use: OperationalError"
    ]

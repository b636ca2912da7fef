"""PostgreSQL going away never fails a turn: record says False with one log line, search and
the faces say so in a sentence, and the pool reconnects when the server is back."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url

from history import HistoryIndex
from history.cli import main
from tests.helpers.tcp_proxy import TcpProxy


@pytest.fixture
def proxy(postgres_url: str) -> Iterator[TcpProxy]:
    url = make_url(postgres_url)
    running = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    running.start()
    yield running
    running.stop()


@pytest.fixture
def proxied_url(postgres_url: str, proxy: TcpProxy) -> str:
    url = make_url(postgres_url).set(host="127.0.0.1", port=proxy.port)
    return url.render_as_string(hide_password=False)


def record(index: HistoryIndex, turn_id: str) -> bool:
    return index.record(
        turn_id=turn_id, session_id="s", project="/p", asked=f"secret plan {turn_id}", answered=""
    )


def test_a_server_down_then_back_costs_only_the_turns_in_between(
    proxied_url: str, proxy: TcpProxy, caplog: pytest.LogCaptureFixture
) -> None:
    index = HistoryIndex.open(proxied_url)
    assert record(index, "before")
    proxy.stop()
    with caplog.at_level(logging.WARNING):
        assert record(index, "during") is False
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert lines == ["turn during not recorded: OperationalError"]
    assert "secret plan" not in caplog.text
    proxy.start()
    assert record(index, "after")
    assert sorted(hit.turn_id for hit in index.search("secret plan", k=10)) == ["after", "before"]
    index.close()


def test_a_restarted_server_is_reconnected_to_without_a_failed_turn(
    proxied_url: str, proxy: TcpProxy
) -> None:
    index = HistoryIndex.open(proxied_url)
    assert record(index, "one")
    proxy.cut()  # every pooled connection dies, as in a restart
    assert record(index, "two")  # the pool notices on checkout and connects afresh
    assert index.count() == 2
    index.close()


def test_the_cli_says_in_a_sentence_that_the_server_cannot_be_reached(
    proxied_url: str, proxy: TcpProxy, capsys: pytest.CaptureFixture[str]
) -> None:
    proxy.stop()
    code = main(["--database-url", proxied_url, "search", "login", "--everywhere"])
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith("recall search failed: the database at postgresql+psycopg://")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_search_while_the_server_is_down_raises_nothing_through_the_tool(
    proxied_url: str, proxy: TcpProxy
) -> None:
    from history.tools import RecallHistoryTool

    index = HistoryIndex.open(proxied_url)
    proxy.stop()
    answer = RecallHistoryTool(index, "/p").run("login")
    assert answer.startswith("error: ") and "\n" not in answer
    index.close()


def test_without_a_server_postgresql_tests_skip_but_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.helpers import postgres

    monkeypatch.setattr(postgres, "ADMIN_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    monkeypatch.setattr(postgres, "_unreachable", None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no PostgreSQL at"):
        postgres.require_server()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: PostgreSQL tests must run"):
        postgres.require_server()

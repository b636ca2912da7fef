"""HistoryIndex over a fake store: what it does before anything reaches a database."""

from __future__ import annotations

import logging

import pytest

from history import HistoryIndex
from tests.helpers.fakes import BrokenTurnRepository, FakeTurnRepository


def test_record_redacts_every_text_field() -> None:
    store = FakeTurnRepository()
    index = HistoryIndex(store, full_text=False)
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert index.record(
        turn_id="t",
        session_id="s",
        project="/p",
        asked=f"use {key}",
        answered=f"ok {key}",
        files=[f"/tmp/{key}.txt"],
        tools=["shell"],
    )
    stored = store.turns["t"]
    assert key not in repr(stored)
    assert "[redacted:github-token]" in stored.asked


def test_a_store_that_cannot_write_never_fails_the_turn(caplog: pytest.LogCaptureFixture) -> None:
    index = HistoryIndex(BrokenTurnRepository(), full_text=False)
    with caplog.at_level(logging.WARNING):
        ok = index.record(
            turn_id="turn-77", session_id="s", project="/p", asked="secret plan", answered="x"
        )
    assert ok is False
    assert "turn-77" in caplog.text and "secret plan" not in caplog.text


def test_a_failing_redactor_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    store = FakeTurnRepository()
    index = HistoryIndex(store, full_text=False)

    def explode(text: str) -> str:
        raise RuntimeError("redactor bug")

    monkeypatch.setattr("history.prepare.redact", explode)
    assert not index.record(turn_id="t", session_id="s", project="/p", asked="a", answered="b")
    assert store.turns == {}


def test_naive_datetimes_are_taken_as_local_time() -> None:
    from datetime import datetime

    store = FakeTurnRepository()
    index = HistoryIndex(store, full_text=False)
    naive = datetime(2026, 6, 1, 12, 0)
    index.record(turn_id="t", session_id="s", project="/p", asked="a", answered="b", asked_at=naive)
    assert store.turns["t"].asked_at == naive.astimezone()


def test_close_twice_is_harmless() -> None:
    index = HistoryIndex(FakeTurnRepository(), full_text=False)
    index.close()
    index.close()
    assert index.closed

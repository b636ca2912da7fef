"""recall_index_text, compiled (fts5_rank.c), gives FTS5 what history.query.index_text gives it:
every connection that loads the library indexes and deletes with it (a forget's delete trigger
calls it for each text column of each turn), so the index it writes is the one search expects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex
from history.query import index_text
from history.store.sqlite import rank_extension
from history.store.sqlite.engine import sqlite_driver
from tests.helpers.engines import engine_of

# Letters either side of every CJK range's edges, ASCII, Latin with diacritics, 4-byte UTF-8.
ALPHABET = (
    "ab z09 _-.\n\té\u00df\u0416\u10ff\u1100\u11ff\u1200\u3004\u3005\u3007\u3008\u303f\u3040"
    "\u30ff\u3100\u3130\u318f\u3190\u31ef\u31f0\u31ff\u3200\u33ff\u3400\u4dbf\u4dc0\u4e00"
    "\u9fff\ua000\ua95f\ua960\ua97f\ua980\uabff\uac00\ud7ff\ue000\uf8ff\uf900\ufaff\ufb00"
    "\uff65\uff66\uff9f\uffa0\U0001f600\U0001ffff\U00020000\U0003ffff\U00040000"
)


@pytest.fixture(scope="module")
def compiled() -> object:
    if rank_extension.library_path() is None:
        missing = "this install has no compiled library (pip install -e . builds it)"
        if os.environ.get("CI"):
            pytest.fail(f"{missing} (CI=true: make test builds it, so its tests must run)")
        pytest.skip(missing)
    conn = sqlite_driver().connect(":memory:")
    assert rank_extension.load(conn)
    return conn


def compiled_text(conn: object, value: object) -> object:
    return conn.execute("SELECT recall_index_text(?)", (value,)).fetchone()[0]  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_the_compiled_text_function_gives_what_index_text_gives(
    compiled: object, value: str
) -> None:
    assert compiled_text(compiled, value) == index_text(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain ascii stays", "plain ascii stays"),
        ("café résumé", "café résumé"),
        ("登录函数", " 登录 录函 函数 "),
        ("a字b", "a 字 b"),
        ("한국어 text", " 한국 국어  text"),
        ("𠀀𠀁", " 𠀀𠀁 "),
    ],
)
def test_cjk_runs_become_their_pairs_and_other_text_stays(
    compiled: object, value: str, expected: str
) -> None:
    assert index_text(value) == expected
    assert compiled_text(compiled, value) == expected


def test_null_and_values_that_are_not_text_come_back_as_they_are(compiled: object) -> None:
    assert compiled_text(compiled, None) is None
    assert compiled_text(compiled, 7) == 7
    assert compiled_text(compiled, b"\xe4\xb8\xad") == b"\xe4\xb8\xad"


def test_an_index_connection_forgets_cjk_text_through_the_compiled_function(
    compiled: object, tmp_path: Path
) -> None:
    index = HistoryIndex.open(tmp_path / "history.db")
    index.record(turn_id="t1", session_id="s1", project="/p", asked="登录函数 login", answered="ok")
    assert [hit.turn_id for hit in index.search("登录", project="/p")] == ["t1"]
    with engine_of(index).connect() as conn:
        # The compiled function answers on the index's own connections (a Python one would too,
        # but not for a blob, which it would pass to str methods).
        assert conn.execute(text("SELECT recall_index_text(x'e4b8ad')")).scalar() == b"\xe4\xb8\xad"
    assert index.forget_session("s1") == 1
    assert index.search("登录", project="/p") == []
    assert index.search("login", project="/p") == []
    index.close()

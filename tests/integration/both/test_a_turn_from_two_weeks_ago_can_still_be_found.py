"""The product note's promise: a coding turn from two weeks ago can still be found."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from history import HistoryIndex
from history.store.sqlite import fts
from tests.helpers.engines import engine_of
from tests.helpers.templates import migrated_copy

NOW = datetime.now(UTC)


def add(index: HistoryIndex, turn_id: str, **fields: object) -> None:
    turn: dict[str, object] = {
        "session_id": "s-1",
        "project": "/work/shop",
        "asked": "How should the login function hash passwords?",
        "answered": "Use argon2id through passlib; never md5.",
        "files": ["src/auth/test_login.py"],
        "edited": ["src/auth/login.py"],
        "tools": ["read_file", "edit_file"],
        "asked_at": NOW - timedelta(days=14),
    }
    turn.update(fields)
    assert index.record(turn_id=turn_id, **turn)  # type: ignore[arg-type]


@pytest.fixture(params=["fts5", "like", "postgresql"])
def any_index(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[HistoryIndex]:
    """conftest's any_index, and PostgreSQL: this module's promises hold on every backend."""
    if request.param == "like":
        monkeypatch.setattr(fts, "fts5_available", lambda conn: False)
    if request.param == "postgresql":
        opened = HistoryIndex.open(request.getfixturevalue("postgres_url"))
    else:
        path = migrated_copy(tmp_path / "history.db", full_text=request.param != "like")
        opened = HistoryIndex.open(path)
    assert opened.full_text is (request.param != "like")
    yield opened
    opened.close()


def ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [hit.turn_id for hit in hits]


@pytest.mark.parametrize(
    "query",
    ["login function", "argon2id", "test_login.py", "PASSWORDS", "passlib md5"],
    ids=["question", "answer", "file name", "case", "answer words"],
)
def test_found_by_words_of_question_answer_and_file(any_index: HistoryIndex, query: str) -> None:
    add(any_index, "t-login")
    add(any_index, "t-css", asked="Centre the header", answered="flexbox", files=[], edited=[])
    assert ids(any_index.search(query, project="/work/shop")) == ["t-login"]


def test_hit_carries_every_field(any_index: HistoryIndex) -> None:
    add(any_index, "t-login", tainted=True)
    (hit,) = any_index.search("login", project="/work/shop")
    assert hit.session_id == "s-1" and hit.project == "/work/shop"
    assert hit.asked_at == (NOW - timedelta(days=14)).replace(microsecond=hit.asked_at.microsecond)
    assert hit.asked_at.tzinfo is not None and hit.asked_at.utcoffset() == timedelta(0)
    assert hit.files == ("src/auth/test_login.py", "src/auth/login.py")
    assert hit.edited == ("src/auth/login.py",)
    assert hit.tools == ("read_file", "edit_file")
    assert hit.tainted is True
    assert hit.score > 0


def test_tainted_flag_round_trips_both_ways(any_index: HistoryIndex) -> None:
    add(any_index, "t-web", tainted=True, asked="summarise the fetched login page")
    add(any_index, "t-local", tainted=False, asked="rename the login helper")
    flags = {hit.turn_id: hit.tainted for hit in any_index.search("login", k=10)}
    assert flags == {"t-web": True, "t-local": False}


def test_project_scope_and_every_project(any_index: HistoryIndex) -> None:
    add(any_index, "t-shop")
    add(any_index, "t-blog", project="/work/blog", session_id="s-2")
    assert ids(any_index.search("login", project="/work/shop")) == ["t-shop"]
    assert ids(any_index.search("login", project="/work/shop/")) == ["t-shop"]
    assert sorted(ids(any_index.search("login", project=None))) == ["t-blog", "t-shop"]
    assert any_index.count("/work/blog") == 1 and any_index.count() == 2


def test_project_key_makes_home_relative_paths_one_project(
    any_index: HistoryIndex, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    add(any_index, "t-home", project="~/proj")
    assert ids(any_index.search("login", project=str(tmp_path / "proj") + "/")) == ["t-home"]


def test_window_in_days(any_index: HistoryIndex) -> None:
    add(any_index, "t-old", asked_at=NOW - timedelta(days=40))
    add(any_index, "t-recent", asked_at=NOW - timedelta(days=3))
    assert ids(any_index.search("login", days=7)) == ["t-recent"]
    assert sorted(ids(any_index.search("login", days=60))) == ["t-old", "t-recent"]


def test_the_days_window_is_exact_to_the_hour(any_index: HistoryIndex) -> None:
    add(any_index, "t-inside", asked_at=NOW - timedelta(days=7) + timedelta(hours=1))
    add(any_index, "t-outside", asked_at=NOW - timedelta(days=7) - timedelta(hours=1))
    assert ids(any_index.search("login", days=7)) == ["t-inside"]


def test_ties_go_to_the_newer_turn(any_index: HistoryIndex) -> None:
    add(any_index, "t-older", asked_at=NOW - timedelta(days=5), session_id="a")
    add(any_index, "t-newer", asked_at=NOW - timedelta(days=1), session_id="b")
    assert ids(any_index.search("login")) == ["t-newer", "t-older"]


def test_asked_text_outranks_the_answer(any_index: HistoryIndex) -> None:
    add(any_index, "t-answer", asked="tidy the module", answered="the cache key changed")
    add(any_index, "t-asked", asked="why did the cache key change", answered="tidied")
    assert ids(any_index.search("cache key"))[0] == "t-asked"


def test_function_word_only_query_finds_nothing(any_index: HistoryIndex) -> None:
    add(any_index, "t-login", asked="what is the thing we did about it")
    assert any_index.search("what is the") == []
    assert any_index.search("o que é isso") == []


def test_same_turn_id_twice_is_one_row_with_the_newer_text(any_index: HistoryIndex) -> None:
    add(any_index, "t-1", asked="first draft about caching")
    add(any_index, "t-1", asked="final words about hashing")
    assert any_index.count() == 1
    assert any_index.search("caching") == []
    assert ids(any_index.search("hashing")) == ["t-1"]


def test_k_limits_results(any_index: HistoryIndex) -> None:
    for n in range(8):
        add(any_index, f"t-{n}", session_id=f"s-{n}")
    assert len(any_index.search("login", k=3)) == 3
    assert len(any_index.search("login", k=10)) == 8
    with pytest.raises(ValueError, match="k"):
        any_index.search("login", k=0)
    with pytest.raises(ValueError, match="days"):
        any_index.search("login", days=0)


def test_forgotten_session_is_gone(any_index: HistoryIndex) -> None:
    add(any_index, "t-keep", session_id="keep")
    add(any_index, "t-drop-1", session_id="drop")
    add(any_index, "t-drop-2", session_id="drop")
    assert any_index.forget_session("drop") == 2
    assert ids(any_index.search("login", k=10)) == ["t-keep"]
    assert any_index.forget_session("drop") == 0


def test_forget_sessions_and_project(any_index: HistoryIndex) -> None:
    add(any_index, "a", session_id="s-a")
    add(any_index, "b", session_id="s-b")
    add(any_index, "c", session_id="s-c", project="/work/blog")
    assert any_index.forget_sessions(["s-a", "s-b", "missing"]) == 2
    add(any_index, "d", session_id="s-d")
    assert any_index.forget_project("/work/shop/") == 1
    assert ids(any_index.search("login", k=10)) == ["c"]


def test_lists_are_deduplicated_in_order_and_edited_files_count_as_files(
    any_index: HistoryIndex,
) -> None:
    add(
        any_index,
        "t",
        files=["b.py", "a.py", "b.py"],
        edited=["c.py", "c.py"],
        tools=["grep", "read_file", "grep"],
    )
    (hit,) = any_index.search("login")
    assert hit.files == ("b.py", "a.py", "c.py")
    assert hit.edited == ("c.py",)
    assert hit.tools == ("grep", "read_file")


def test_long_text_is_capped(any_index: HistoryIndex) -> None:
    from history.limits import MAX_TEXT_CHARS

    add(any_index, "t", answered="login " * 50_000)
    (hit,) = any_index.search("login")
    assert len(hit.answered) == MAX_TEXT_CHARS


def test_pasted_key_is_in_neither_the_db_nor_the_wal(tmp_path: Path) -> None:
    key = "sk-proj-" + "Q7vR2mXk9LpW4tYz8NbC3dFg6HjK1sAe"
    index = HistoryIndex.open(tmp_path / "history.db")
    add(index, "t-key", asked=f"my key is {key}, why does login fail?", answered=f"rotate {key}")
    assert ids(index.search("login")) == ["t-key"]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("history.db"))
    assert (tmp_path / "history.db-wal").exists()
    assert key.encode() not in raw and b"Q7vR2mXk9LpW4tYz" not in raw
    index.close()


def test_record_stores_through_triggers_into_fts(index: HistoryIndex) -> None:
    add(index, "t-1")
    with engine_of(index).connect() as conn:
        rows = conn.execute(text("SELECT rowid FROM turns_fts WHERE turns_fts MATCH 'argon2id'"))
        assert len(rows.all()) == 1
        check = conn.execute(text(fts.integrity_check_statement()))
        assert check.rowcount in (-1, 0, 1)


def test_same_questions_same_answers_on_fts5_and_like(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = [
        ("t1", "/p/a", "login function hashes passwords", "argon2id", ["auth/login.py"], 2),
        ("t2", "/p/a", "cache the session lookup", "lru_cache on get_session", ["db.py"], 10),
        ("t3", "/p/b", "Função de login em português", "feito", [], 30),
        ("t4", "/p/b", "write test_login.py", "pytest fixtures for login", ["test_login.py"], 1),
        ("t5", "/p/a", "bump the version", "done", ["pyproject.toml"], 90),
    ]
    queries = [
        ("login", None, None),
        ("funcao", None, None),
        ("session cache", "/p/a", None),
        ("login", "/p/b", 7),
        ("pyproject toml", None, 100),
        ("nothing matches", None, None),
    ]
    results = []
    for path in ("fts5", "like"):
        if path == "like":
            monkeypatch.setattr(fts, "fts5_available", lambda conn: False)
        index = HistoryIndex.open(tmp_path / path / "history.db")
        for turn_id, project, asked, answered, files, age in turns:
            add(
                index,
                turn_id,
                project=project,
                asked=asked,
                answered=answered,
                files=files,
                edited=[],
                asked_at=NOW - timedelta(days=age),
                session_id=turn_id,
            )
        results.append(
            [sorted(ids(index.search(q, project=p, days=d, k=10))) for q, p, d in queries]
        )
        index.close()
    assert results[0] == results[1]
    assert results[0][0] == ["t1", "t3", "t4"]


def test_rerecording_a_turn_leaves_no_stale_index_rows(index: HistoryIndex) -> None:
    # INSERT OR REPLACE deletes the old row without firing turns_ad: its terms and docsize row
    # would stay in turns_fts. The upsert must leave the index exactly in step with the table.
    for version in ("first draft about caching", "second about hashing", "third about tokens"):
        add(index, "t-1", asked=version)
    with engine_of(index).connect() as conn:
        docsize = conn.execute(text("SELECT count(*) FROM turns_fts_docsize")).scalar_one()
        conn.execute(text(fts.integrity_check_statement()))
    assert docsize == index.count() == 1


def test_record_many_counts_new_updated_unchanged_and_forgotten(any_index: HistoryIndex) -> None:
    from history.importers.base import ImportedTurn

    def turn(turn_id: str, session: str, asked: str) -> ImportedTurn:
        return ImportedTurn(
            turn_id=turn_id,
            session_id=session,
            project="/work/shop",
            asked=asked,
            answered="ok",
            files=("a.py",),
            edited=(),
            tools=("read_file",),
            tainted=False,
            asked_at=NOW - timedelta(days=1),
        )

    first = [turn("t1", "s1", "login flow"), turn("t2", "s1", "cache"), turn("t3", "s2", "css")]
    counts = any_index.record_many(first)
    assert (counts.new, counts.updated, counts.unchanged) == (3, 0, 0)
    again = any_index.record_many([*first[:2], turn("t3", "s2", "css grid"), turn("t4", "s2", "x")])
    assert (again.new, again.updated, again.unchanged) == (1, 1, 2)

    assert any_index.forget_session("s1") == 2
    skipped = any_index.record_many(first)
    assert (skipped.new, skipped.forgotten) == (0, 2)
    assert ids(any_index.search("login")) == []
    brought_back = any_index.record_many(first, include_forgotten=True)
    assert brought_back.new == 2 and ids(any_index.search("login")) == ["t1"]
    assert any_index.session_ids("/work/shop") == ["s1", "s2"]


def test_forgetting_a_project_stops_imports_bringing_its_sessions_back(
    any_index: HistoryIndex,
) -> None:
    add(any_index, "t1", session_id="s1")
    assert any_index.forget_project("/work/shop") == 1
    assert any_index.session_ids() == []
    from history.importers.base import ImportedTurn

    again = ImportedTurn(
        turn_id="t1",
        session_id="s1",
        project="/work/shop",
        asked="login",
        answered="",
        files=(),
        edited=(),
        tools=(),
        tainted=False,
        asked_at=NOW,
    )
    assert any_index.record_many([again]).forgotten == 1
    assert any_index.count() == 0


def test_a_turn_recorded_again_under_another_project_moves_with_it(any_index: HistoryIndex) -> None:
    # The project is part of the full-text index: changing it must reindex the row.
    add(any_index, "t-1", project="/work/shop")
    add(any_index, "t-1", project="/work/blog")
    assert ids(any_index.search("login", project="/work/shop")) == []
    assert ids(any_index.search("login", project="/work/blog")) == ["t-1"]


@pytest.mark.parametrize("query", ["новый файл", "Файл", "объёмом", "ÉCOLE"])
def test_regression_russian_words_with_short_i_or_yo_are_found(
    any_index: HistoryIndex, query: str
) -> None:
    # FTS5 keeps й and ё as letters of their own; the query once folded them to и and е.
    add(
        any_index,
        "t-ru",
        asked="Где новый файл настроек?",
        answered="В src/École/config.py, с объёмом кэша",
    )
    add(any_index, "t-css", asked="Centre the header", answered="flexbox", files=[], edited=[])
    assert ids(any_index.search(query, k=5)) == ["t-ru"]

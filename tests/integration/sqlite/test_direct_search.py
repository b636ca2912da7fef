"""`recall search` and the MCP server's recall_history search a current SQLite file through the
driver alone (history/direct_read.py, history/store/sqlite/direct_search.py): what they find
must be what HistoryIndex finds, hit for hit, score for score, in the same order, cut short or
not alike; and a file that needs more than a read (a forget under way, a scrub owed, a re-scan
due) must go the whole way, hidden and masked as HistoryIndex hides and masks."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from history import HistoryIndex, limits, rules_version
from history.direct_read import ReadingIndex
from history.domain import SearchResults, Turn
from history.meaning_default import ENVIRONMENT as MEANING_ENV
from history.projects import project_key
from history.query import terms
from history.store.sqlite import direct_search, fts_search
from history.store.sqlite.connection import set_up, sqlite_driver
from tests.helpers.direct_turns import NOW, TOKEN, turn
from tests.helpers.templates import new_index


def turns(root: Path) -> list[Turn]:
    p, q, hidden = str(root / "p"), str(root / "q"), str(root / f"secret-{TOKEN}")
    return [
        turn("t1", "s1", p, 3, files=("parser.py",), tools=("recall_history",)),
        turn("t2", "s1", p, 2, edited=("config.py",), answered="the parser config uses toml"),
        turn("t3", "s2", p, 0.5, tainted=True, work="$ pytest -q\n~ parser.py\n+ def config():"),
        turn("t4", "s-gone", p, 1, asked="parser config for the forgotten one"),
        turn("t5", "s3", q, 1, asked="login hashes passwords with argon2id"),
        turn("t6", "s3", q, 40, asked="an old parser config in q"),
        turn("t7", "s3", q, 400, asked="a parser config past q's retention"),
        turn("t8", "s4", hidden, 2, asked="the parser of the secret project"),
        turn("t9", f"sess-{TOKEN}", p, 4, asked="config parser config parser", files=("a.py",)),
        *(turn(f"tw{n}", "s5", p, 10 + n, asked=f"parser word {n} config") for n in range(30)),
    ]


def make_home(home: Path, root: Path, named_retention: bool) -> Path:
    """A current home as the index leaves it: turns, a forgotten conversation, retention."""
    home.mkdir(parents=True)
    (home / "history.id-key").write_bytes(b"k" * 32)
    (home / "history.id-key").chmod(0o600)
    opened = new_index(home / "history.db")
    opened.record_many(turns(root))
    opened.forget_session("s-gone")
    opened.set_retention(1000)
    assert opened.tidy()  # current: nothing owed
    opened.close()
    if named_retention:  # set after the upkeep: q's turns past it are stored still, not found
        _set(
            home / "history.db",
            "INSERT INTO retention_settings (project, keep_days, set_at) VALUES (?, 30, ?)",
            project_key(str(root / "q")),
            NOW.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds"),
        )
    return home / "history.db"


def queries(root: Path) -> list[tuple[str, str | None, int | None, int]]:
    p, q, hidden = str(root / "p"), str(root / "q"), str(root / f"secret-{TOKEN}")
    return [
        ("parser config", None, None, 5),
        ("parser config", None, None, 10),
        ("pytest parser config", None, None, 10),
        ("parser", p, None, 3),
        ("config parser settings", q, None, 10),
        ("parser config", p, 1, 5),
        ("parser config", None, 30, 10),
        ("argon2id login", None, 7, 5),
        ("old parser config past retention", None, None, 2),
        ("old parser config past retention", q, None, 5),
        ("parser", hidden, None, 5),
        ("parser", str(root / "nowhere"), None, 5),
        ("recall_history parser", p, None, 1),
        ("nothingmatcheshere", None, None, 5),
        ("the of a", None, None, 5),
    ]


def shown(found: SearchResults) -> tuple[list[dict[str, Any]], bool]:
    return [asdict(hit) for hit in found], found.approximate


def directly(reading: ReadingIndex) -> direct_search.DirectSearch:
    found = reading._direct
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("named_retention", "tight"),
    [(True, False), (False, False), (False, True)],
    ids=["per-project", "one-setting", "cut-short"],
)
def test_a_current_file_is_searched_directly_with_the_index_s_answers(
    tmp_path: Path, named_retention: bool, tight: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MEANING_ENV, raising=False)
    if tight:  # a budget so small that searches are cut short, and their hits approximate
        monkeypatch.setattr(fts_search, "WORK_BUDGET", 12)
        monkeypatch.setattr(fts_search, "WINDOW_ROWS", 4)
        monkeypatch.setattr(fts_search, "CACHE_FROM_ROWS", 1)  # counts cached and kept
    database = make_home(tmp_path / "home", tmp_path, named_retention)
    reading = ReadingIndex(tmp_path / "home")
    assert directly(reading).ask(lambda _reading: True) is True  # current: no fallback
    whole = HistoryIndex.open(database)
    try:
        for query, project, days, k in queries(tmp_path):
            direct = directly(reading).ask(partial(driver_search, query, project, days, k))
            assert direct is not None  # read through the driver, not the index
            expected = whole.search(query, project, days, k)
            assert shown(direct) == shown(expected), (query, project, days, k)
            assert shown(reading.search(query, project, days, k)) == shown(expected)
        cut = whole.search("parser config", None, None, 10).approximate
        assert cut == tight
        some = whole.search("pytest parser config", None, None, 10)
        assert all(hit.session_id != "s-gone" for hit in some)
        stored = directly(reading).ask(
            lambda found: found.sql.exec_driver_sql("SELECT count(*) FROM turns").scalar()
        )
        assert stored == len(turns(tmp_path)) - 1  # the forgotten one; t6 and t7 stored still
        past = whole.search("old parser config past retention", None, None, 2)
        # The two best, past q's retention where it has one: the margin brings two others.
        assert len(past) == 2
        assert ({hit.turn_id for hit in past} == {"t6", "t7"}) == (not named_retention)
        if not tight:  # what the searches compared above held
            assert len(some) == 10 and {hit.tainted for hit in some} == {True, False}
            assert any("redacted" in hit.session_id for hit in some)
        for project in (None, str(tmp_path / "p"), str(tmp_path / "q"), str(tmp_path / "x")):
            assert reading.count(project) == whole.count(project)
        counted = directly(reading).ask(lambda r: r.count(None))
        assert (counted is None) == named_retention  # one setting is counted directly too
    finally:
        reading.close()
        whole.close()
    # Only a count under a project's own retention opened the index.
    assert (reading._whole is None) == (not named_retention)


def driver_search(
    query: str, project: str | None, days: int | None, k: int, reading: direct_search.Reading
) -> SearchResults:
    """The search HistoryIndex.search runs, asked of one read through the driver."""
    words = terms(query)
    return reading.search(words, project, limits.since(days), k) if words else SearchResults()


def _set(database: Path, sql: str, *values: Any) -> None:
    conn = sqlite_driver().connect(str(database))
    try:
        set_up(conn, 5_000)  # the triggers' functions
        conn.execute(sql, values)
    finally:
        conn.close()


def test_under_a_pending_rescan_the_search_goes_the_whole_way_and_is_masked(
    tmp_path: Path,
) -> None:
    """A turn stored under older rules holds a secret the current rules catch: the index masks
    it on the way out, and so must the search that could have read it directly."""
    database = make_home(tmp_path / "home", tmp_path, named_retention=False)
    _set(database, "UPDATE turns SET answered = ? WHERE turn_id = 't2'", f"zanzibar {TOKEN} here")
    _set(
        database,
        "UPDATE retention_settings SET keep_days = 1 WHERE project = ?",
        rules_version.VERSION_KEY,
    )
    reading = ReadingIndex(tmp_path / "home")
    try:
        assert directly(reading).ask(lambda _reading: True) is None
        found = reading.search("zanzibar", None, None, 10)
        assert reading._whole is not None  # the index answered (and masked)
        t2 = [hit for hit in found if hit.turn_id == "t2"]
        assert t2 and "[redacted" in t2[0].answered
        assert all(TOKEN not in hit.answered for hit in found)
    finally:
        reading.close()


FALLBACKS = {
    "a forget under way": (
        "INSERT INTO forget_work (session_id, project, owed_at) "
        "VALUES ('s1', NULL, '2026-01-01 00:00:00.000000')"
    ),
    # Or replaced: the open before may have owed one already (retention expiring a turn).
    "a scrub owed": (
        "INSERT OR REPLACE INTO owed_scrub (id, owed_at, rewrite_index, rewriting) "
        "VALUES (1, '2026-01-01 00:00:00.000000', 0, 0)"
    ),
    "no full-text index": "DROP TABLE turns_fts",
}


@pytest.mark.parametrize("change", FALLBACKS, ids=list(FALLBACKS))
def test_a_file_that_needs_more_than_a_read_is_searched_the_whole_way(
    tmp_path: Path, change: str
) -> None:
    database = make_home(tmp_path / "home", tmp_path, named_retention=True)
    opened = HistoryIndex.open(database)
    before = shown(opened.search("parser config", None, None, 10))
    opened.close()
    _set(database, FALLBACKS[change])
    reading = ReadingIndex(tmp_path / "home")
    try:
        assert directly(reading).ask(lambda _reading: True) is None
        found = reading.search("parser config", None, None, 10)
        assert reading._whole is not None  # the index answered
        if change == "a forget under way":  # its conversation is out of the results at once
            assert [h for h in found if h.session_id == "s1"] == []
            assert len(found) > 0
        else:
            assert shown(found)[0] != [] and len(found) == len(before[0])
    finally:
        reading.close()


def test_search_by_meaning_and_a_url_go_the_whole_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search by meaning is answered by the driver only while no turn has a vector (it is
    then the words' search): once one has, it goes the whole way, to the model."""
    pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")
    from history.meaning.embedder import HashedWords

    database = make_home(tmp_path / "home", tmp_path, named_retention=False)
    assert ReadingIndex(tmp_path / "home", "sqlite:///" + str(tmp_path / "x.db"))._direct is None
    monkeypatch.setenv(MEANING_ENV, "1")
    for vectors in (False, True):
        if vectors:
            whole = HistoryIndex.open(database)
            whole.meaning(HashedWords()).embed()
            whole.close()
        reading = ReadingIndex(tmp_path / "home")
        try:
            reading.search("parser config")
            assert (reading._whole is not None) == vectors
        finally:
            reading.close()


def test_a_file_put_in_the_home_s_place_is_read_by_a_reader_already_open(tmp_path: Path) -> None:
    """A long-lived server (`recall mcp`) reads the home's file as it is now: one moved aside
    and replaced (a damaged file, a copy put back) is not read through the old connection."""
    database = make_home(tmp_path / "home", tmp_path, named_retention=False)
    other = make_home(tmp_path / "other", tmp_path / "elsewhere", named_retention=False)
    opened = HistoryIndex.open(other)
    opened.forget_session("s5")
    opened.tidy()
    opened.close()
    reading = ReadingIndex(tmp_path / "home")
    try:
        before = directly(reading).ask(lambda found: found.count(None))
        for suffix in ("", "-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        other.rename(database)
        after = directly(reading).ask(lambda found: found.count(None))
        assert before is not None and after is not None
        assert after == before - 30  # the other file's turns: its s5 forgotten
        assert reading.search("parser", str(tmp_path / "elsewhere" / "p"), None, 5)
    finally:
        reading.close()

"""A turn's work (its commands, failures and added lines) as a field of its own: stored, found,
ranked below the answer, masked, shown, forgotten; and the revision that adds it, up and down."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text

from history import HistoryIndex
from history.api import create_app
from history.importers.base import ImportedTurn
from history.limits import MAX_WORK_CHARS
from history.store import migrations
from history.store.postgres import engine as pg_engine
from history.store.sqlite import engine as sqlite_db
from history.tools.recall_turn import RecallTurnTool
from tests.helpers import postgres
from tests.helpers.cli_runs import recall
from tests.helpers.forgetting import CANARY, file_bytes, scrubbed_soon
from tests.helpers.turns import raw_turn

pytestmark = pytest.mark.both_backends

KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
WORK = "$ alembic upgrade head\n! sqlalchemy.exc.OperationalError: no such table: zanzitable"
NOW = datetime.now(UTC).replace(microsecond=0)


def record(index: HistoryIndex, turn_id: str, **extra: Any) -> None:
    extra.setdefault("session_id", "conv-1")
    extra.setdefault("project", "/w/shop")
    extra.setdefault("asked", f"question {turn_id}")
    extra.setdefault("answered", f"answer {turn_id}")
    extra.setdefault("asked_at", NOW - timedelta(hours=1))
    assert index.record(turn_id=turn_id, **extra)


def filler(index: HistoryIndex, count: int = 12) -> None:
    """Turns holding none of the words searched for: they give those words an idf."""
    for n in range(count):
        record(index, f"other-{n}", asked=f"ordinary question {n}", answered="ordinary answer")


def test_a_word_only_in_the_work_finds_the_turn(index: HistoryIndex) -> None:
    filler(index)
    record(index, "migrate", asked="why does the upgrade fail", answered="fixed it", work=WORK)
    (hit,) = index.search("zanzitable", project="/w/shop")
    assert hit.turn_id == "migrate" and hit.work == WORK
    stored = index.turn("migrate")
    assert stored is not None and stored.work == WORK
    # A turn recorded without work has none, and is found as before.
    record(index, "plain", answered="zanzitable explained")
    assert {hit.turn_id for hit in index.search("zanzitable", project="/w/shop")} == {
        "migrate",
        "plain",
    }
    assert index.turn("plain") is not None and index.turn("plain").work == ""  # type: ignore[union-attr]


def test_a_turn_with_the_word_in_its_answer_ranks_above_one_with_it_only_in_its_work(
    index: HistoryIndex,
) -> None:
    filler(index)
    # The same words in each, only where the searched one stands differs.
    record(index, "in-work", answered="ran the usual command", work="$ make quuxfrob all")
    record(index, "in-answer", answered="ran the quuxfrob command", work="$ make usual all")
    hits = index.search("quuxfrob", project="/w/shop")
    assert [hit.turn_id for hit in hits] == ["in-answer", "in-work"]
    assert hits[0].score > hits[1].score > 0


def test_a_secret_in_the_work_is_masked(index: HistoryIndex) -> None:
    work = f"$ curl -H 'Authorization: token {KEY}' https://api.github.com/user\n! 401 denied"
    record(index, "secret", work=work)
    stored = index.turn("secret")
    assert stored is not None
    assert KEY not in stored.work and "! 401 denied" in stored.work
    assert stored.work.startswith("$ curl -H 'Authorization: token ")
    (hit,) = index.search("denied", project="/w/shop")
    assert KEY not in hit.work


def test_the_work_is_cut_at_its_bound(index: HistoryIndex) -> None:
    record(index, "long", work="$ echo " + "x" * (MAX_WORK_CHARS * 2))
    stored = index.turn("long")
    assert stored is not None and len(stored.work) == MAX_WORK_CHARS


def test_an_import_stores_each_turns_work(index: HistoryIndex) -> None:
    imported = ImportedTurn(
        turn_id="imp-1",
        session_id="conv-9",
        project="/w/shop",
        asked="run the tests",
        answered="They pass.",
        files=(),
        edited=("src/a.py",),
        tools=("Bash",),
        tainted=False,
        asked_at=NOW - timedelta(days=1),
        work="$ pytest -q tests/test_grommet.py\n~ src/a.py\n+ def grommet(): ...",
    )
    counts = index.record_many([imported])
    assert counts.new == 1
    (hit,) = index.search("grommet", project="/w/shop")
    assert hit.turn_id == "imp-1" and hit.work == imported.work
    assert index.record_many([imported]).unchanged == 1


def test_recording_an_identical_turn_again_is_unchanged_not_updated(index: HistoryIndex) -> None:
    # The bug: a turn sent again without asked_at was stamped now, so it was "updated" each time
    # and moved to the top of its conversation.
    fields: dict[str, Any] = dict(
        turn_id="same", session_id="s", project="/w/shop", asked="a", answered="b", work=WORK
    )
    assert index.record_outcome(**fields) == "new"
    first = index.turn("same")
    assert index.record_outcome(**fields) == "unchanged"
    again = index.turn("same")
    assert first is not None and again == first
    # Any stored field that differs is a change, the work too; the stored time is still kept.
    assert index.record_outcome(**{**fields, "work": WORK + "\n$ make"}) == "updated"
    changed = index.turn("same")
    assert changed is not None and changed.asked_at == first.asked_at
    # A time given is the turn's time.
    later = first.asked_at + timedelta(minutes=5)
    assert index.record_outcome(**{**fields, "asked_at": later}) == "updated"
    assert index.turn("same").asked_at == later  # type: ignore[union-attr]


def test_posting_an_identical_turn_again_answers_unchanged(index: HistoryIndex) -> None:
    body = {
        "turn_id": "posted",
        "session_id": "conv-1",
        "project": "/w/shop",
        "asked": "How do we run the migration?",
        "answered": "With alembic.",
        "work": WORK,
    }
    with TestClient(create_app(index)) as client:
        assert client.post("/api/code/turns", json=body).json()["outcome"] == "new"
        at = client.get("/api/code/turns/posted").json()["asked_at"]
        again = client.post("/api/code/turns", json=body)
        assert again.status_code == 201 and again.json()["outcome"] == "unchanged"
        shown = client.get("/api/code/turns/posted").json()
        assert shown["asked_at"] == at and shown["work"] == WORK
        found = client.get("/api/code/history", params={"q": "zanzitable", "project": "/w/shop"})
        (hit,) = found.json()["hits"]
        assert hit["turn_id"] == "posted" and hit["work"] == WORK
        too_long = client.post("/api/code/turns", json={**body, "work": 7})
        assert too_long.status_code == 422


def test_recall_turn_shows_the_work_after_the_answer(index: HistoryIndex) -> None:
    record(index, "shown", answered="Fixed the table name.", work=WORK)
    out = RecallTurnTool(index, "/w/shop").run("shown")
    assert out.endswith(f"answered:\nFixed the table name.\nwork:\n{WORK}")
    record(index, "bare")
    assert "work:" not in RecallTurnTool(index, "/w/shop").run("bare")


def test_recall_show_prints_the_work_and_its_json_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    index = HistoryIndex.open(home / "history.db")
    record(index, "shown", answered="Fixed the table name.", work=WORK)
    index.close()
    code, out, _ = recall(capsys, "--home", str(home), "show", "shown")
    assert code == 0 and out.rstrip("\n").endswith(
        f"answered:\nFixed the table name.\nwork:\n{WORK}"
    )
    code, out, _ = recall(capsys, "--home", str(home), "show", "shown", "--json")
    assert code == 0 and json.loads(out)["work"] == WORK


def test_forgetting_removes_the_work_from_the_database_files(
    index: HistoryIndex, tmp_path: Path, backend: str
) -> None:
    filler(index, 300)
    record(index, "doomed", session_id="doomed", work=f"$ grep {CANARY} src\n! {CANARY} not found")
    assert index.search(CANARY, project=None)
    if backend == "sqlite":
        assert CANARY[-8:].encode() in file_bytes(tmp_path)
    assert index.forget_session("doomed") == 1
    assert index.search(CANARY, project=None) == []
    if backend == "sqlite":
        assert scrubbed_soon(index)
        raw = file_bytes(tmp_path)
        assert CANARY.encode() not in raw and CANARY[-8:].encode() not in raw
    else:
        from tests.helpers.pg_files import (
            relation_bytes,
            scrubbed,
            url,
        )

        assert scrubbed(index)
        assert CANARY.encode() not in relation_bytes(url(index))


# The revision that adds the work, on an index that holds turns from before it.

OLD_ROW = (
    "INSERT INTO turns (turn_id, session_id, project, asked_at, tainted, asked, answered, files,"
    " edited, tools) VALUES ('old-1', 's', '/p', :at, false, 'decide the login hashing',"
    " 'argon2id it is', '[\"auth.py\"]', '[]', '[]')"
)
AT = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_0016_gives_old_turns_no_work_keeps_them_found_and_its_downgrade_drops_the_work(
    backend: str, tmp_path: Path
) -> None:
    if backend == "sqlite":
        url = str(tmp_path / "old.db")
        engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(Path(url)))
        writer = sqlite_db.writer(engine)
    else:
        postgres.require_server()
        name = postgres.fresh_database()
        url = postgres.url_of(name)
        engine = writer = pg_engine.create_postgres_engine(url)
        migrations.downgrade(engine, "base")
    migrations.upgrade(engine, "0015_postgres_project_words")
    with writer.begin() as conn:
        conn.execute(text(OLD_ROW), {"at": AT.replace(tzinfo=None)})
    migrations.upgrade(engine)  # 0016

    index = HistoryIndex.open(url)
    (old,) = index.search("argon2id", project="/p")
    assert old.turn_id == "old-1" and old.work == "" and old.files == ("auth.py",)
    record(index, "new-1", project="/p", work="$ pytest -k sprocket_vectors")
    (new,) = index.search("sprocket", project="/p")
    assert new.turn_id == "new-1"
    index.close()

    migrations.downgrade(engine, "0015_postgres_project_words")
    assert "work" not in {column["name"] for column in inspect(engine).get_columns("turns")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM turns")).scalar() == 2
    migrations.upgrade(engine)
    engine.dispose()
    index = HistoryIndex.open(url)
    assert [hit.turn_id for hit in index.search("argon2id", project="/p")] == ["old-1"]
    assert index.search("sprocket", project="/p") == []  # the downgrade dropped it
    back = index.turn("new-1")
    assert back is not None and back.work == ""
    index.close()
    if backend != "sqlite":
        postgres.drop(name)


def test_a_turn_spooled_during_a_forget_keeps_its_work_when_it_moves_in(tmp_path: Path) -> None:
    from history.prepare import prepare
    from history.store.sqlite.repository import SqliteTurnRepository

    index = HistoryIndex.open(tmp_path / "history.db")
    repository = index._repository
    assert isinstance(repository, SqliteTurnRepository)
    turn = prepare(raw_turn("spooled", "s", "/w/shop", "asked", work=WORK))
    assert repository.spool.add(turn, lambda: True)  # as a record does while a forget holds on
    assert index.tidy()
    stored = index.turn("spooled")
    assert stored is not None and stored.work == WORK
    assert [hit.turn_id for hit in index.search("zanzitable", project="/w/shop")] == ["spooled"]
    index.close()


def test_recovering_a_file_from_before_the_work_keeps_its_turns(tmp_path: Path) -> None:
    from history.store.sqlite.recovery import recover_in_place

    path = tmp_path / "history.db"
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(path))
    migrations.upgrade(engine, "0015_postgres_project_words")
    with sqlite_db.writer(engine).begin() as conn:
        conn.execute(text(OLD_ROW), {"at": AT.replace(tzinfo=None)})
    engine.dispose()
    salvaged, _ = recover_in_place(path)
    assert salvaged.copied["turns"] == 1 and not salvaged.damaged
    index = HistoryIndex.open(path)
    (hit,) = index.search("argon2id", project="/p")
    assert hit.turn_id == "old-1" and hit.work == ""
    index.close()


def test_record_many_still_takes_turns_that_carry_no_work(index: HistoryIndex) -> None:
    from dataclasses import dataclass

    @dataclass
    class OwnTurn:  # a caller's own turn type, as record_many took before the work existed
        turn_id: str
        session_id: str = "s"
        project: str = "/w/shop"
        asked: str = "an older caller's question"
        answered: str = "its answer"
        files: tuple[str, ...] = ()
        edited: tuple[str, ...] = ()
        tools: tuple[str, ...] = ()
        tainted: bool = False
        asked_at: datetime | None = None

    assert index.record_many([OwnTurn("own-1")]).new == 1
    stored = index.turn("own-1")
    assert stored is not None and stored.work == ""

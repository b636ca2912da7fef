"""Search by meaning (history/meaning/): a turn found by what it was about, not its words; its
vector forgotten with it, to the bytes; the background embedding resumed after a kill; and,
where nothing is embedded or the extra is absent, search exactly as lexical as before.

The fake model (HashedWords) runs everywhere numpy does (the dev install has it); the tests of
the packaged model skip without the `meaning` extra."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy", reason="history/meaning needs numpy (the dev or meaning extra)")

from history import HistoryIndex, meaning
from history.meaning.embedder import HashedWords
from history.meaning.vectors import quantized
from tests.helpers.cli_runs import recall

TOPICS = [
    ("the deploy to kubernetes failed on a missing secret", "added the secret to the chart"),
    ("the login form rejects valid passwords", "trimmed whitespace before hashing"),
    ("css of the settings page overflows on phones", "wrapped the grid"),
    ("the nightly backup job runs twice", "removed the duplicate cron entry"),
    ("parser crashes on empty yaml files", "returned an empty mapping"),
    ("flaky test in the payment webhook suite", "awaited the mock server"),
]
# The fake's "understanding": these words of a query land where the turn's words do.
PARAPHRASE = "signing in refuses correct credentials"
MEANINGS = {
    "signing": "login",
    "refuses": "rejects",
    "correct": "valid",
    "credentials": "passwords",
}


def filled(path: Path, turns: int = 0) -> HistoryIndex:
    index = HistoryIndex.open(path)
    index.meaning_search = True  # on by default only where the extra is installed
    topics(index, "/work/app", "topic", "session")
    for n in range(turns):
        index.record(
            turn_id=f"more-{n}",
            session_id=f"more-{n % 5}",
            project="/work/app",
            asked=f"routine change number {n}",
            answered="done",
        )
    return index


def topics(index: HistoryIndex, project: str, turn: str, session: str) -> None:
    for n, (asked, answered) in enumerate(TOPICS):
        index.record(
            turn_id=f"{turn}-{n}",
            session_id=f"{session}-{n}",
            project=project,
            asked=asked,
            answered=answered,
        )


def test_a_turn_is_found_by_a_paraphrase_that_shares_no_word_with_it(tmp_path: Path) -> None:
    index = filled(tmp_path / "history.db")
    assert not index.search(PARAPHRASE, project=None), "the words alone find nothing"
    index.meaning(HashedWords(MEANINGS)).embed()
    found = index.search(PARAPHRASE, project=None, k=3)
    assert found[0].turn_id == "topic-1"
    index.meaning_search = False
    assert not index.search(PARAPHRASE, project=None), "--words-only keeps to the words"


def test_a_query_near_no_turn_finds_nothing_by_meaning_either(tmp_path: Path) -> None:
    """Regression: the nearest vectors were listed however far, so a query whose words match
    nothing never found nothing (the page's "no turn matches", a forget's check)."""
    index = filled(tmp_path / "history.db")
    index.meaning(HashedWords(MEANINGS)).embed()
    assert index.search("kangaroo walrus", project=None) == []
    assert index.search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"


def test_a_search_that_runs_once_reads_the_table_and_answers_as_the_matrix_does(
    tmp_path: Path,
) -> None:
    """`recall search` (meaning_once) reads the nearest vectors from the table, only the
    project's when it keeps to one, instead of loading every vector first: same hits."""
    path = tmp_path / "history.db"
    index = filled(path, turns=30)
    topics(index, "/work/other", "elsewhere", "elsewhere")
    index.meaning(HashedWords(MEANINGS)).embed()
    once = HistoryIndex.open(path)
    once.meaning_once, once.meaning_search = True, True
    scan = once.meaning(HashedWords(MEANINGS))
    queries = [PARAPHRASE, "login passwords", "routine change number 7", "yaml crashes"]
    for project in (None, "/work/app", "/work/other"):
        for query in queries:
            read = [(h.turn_id, h.score) for h in once.search(query, project=project, k=8)]
            kept = [(h.turn_id, h.score) for h in index.search(query, project=project, k=8)]
            assert read == kept, (query, project)
    found = once.search(PARAPHRASE, project="/work/other", k=1)
    assert found[0].turn_id == "elsewhere-1"
    for project in ("/work/app", "/work/other"):
        key = index._ids.scope(project)
        near = scan.nearest(PARAPHRASE, 50, key)
        assert near == index.meaning().nearest(PARAPHRASE, 50, key) and len(near) < 42
    assert len(scan.matrix.ids) == 0, "the matrix was never loaded"


def test_a_search_by_meaning_keeps_to_the_project_asked(tmp_path: Path) -> None:
    index = filled(tmp_path / "history.db")
    index.record(
        turn_id="elsewhere",
        session_id="other",
        project="/work/other",
        asked="the login form rejects valid passwords",
        answered="same bug elsewhere",
    )
    index.meaning(HashedWords(MEANINGS)).embed()
    found = index.search(PARAPHRASE, project="/work/app", k=10)
    assert "topic-1" in [hit.turn_id for hit in found]
    assert "elsewhere" not in [hit.turn_id for hit in found]


def test_with_nothing_embedded_the_results_are_the_lexical_ones(tmp_path: Path) -> None:
    index = filled(tmp_path / "history.db", turns=40)
    index.meaning(HashedWords())  # installed, but no turn embedded yet
    queries = ["login passwords", "routine change", "yaml parser crashes", "number 7"]
    blended = [[(h.turn_id, h.score) for h in index.search(q, project=None, k=5)] for q in queries]
    index.meaning_search = False
    lexical = [[(h.turn_id, h.score) for h in index.search(q, project=None, k=5)] for q in queries]
    assert blended == lexical


def test_without_the_extra_search_is_lexical_and_stats_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(meaning, "installed", lambda: False)
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "home"))
    index = filled(tmp_path / "home" / "history.db")
    assert index.meaning() is None
    assert index.search("login passwords", project=None)[0].turn_id == "topic-1"
    index.close()
    code, out, _err = recall(capsys, "stats")
    assert code == 0
    assert re.search(r"meaning search: +not installed", out), out
    code, _out, err = recall(capsys, "search", "--words-only", "--everywhere", "login")
    assert code == 0, err


def test_stats_says_how_many_turns_wait_to_be_embedded(tmp_path: Path) -> None:
    index = filled(tmp_path / "history.db", turns=10)
    found = index.meaning(HashedWords())
    assert found.waiting() == 16
    assert found.embed(batch=4) == 16
    assert found.waiting() == 0
    index.record(turn_id="new", session_id="s", project="/work/app", asked="a new one", answered="")
    assert found.waiting() == 1


def test_the_newest_turns_are_embedded_first(tmp_path: Path) -> None:
    index = filled(tmp_path / "history.db", turns=30)
    from history.meaning.vectors import embed_step

    found = index.meaning(HashedWords())
    embed_step(found.engine, found.embedder, 5)
    with found.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT turn_id FROM turn_vectors").scalars().all()
        newest = conn.exec_driver_sql("SELECT max(id) FROM turns").scalar_one()
    assert sorted(rows) == list(range(newest - 4, newest + 1))


def test_turns_recorded_since_in_more_than_a_batch_are_all_embedded(tmp_path: Path) -> None:
    """Regression: the turns recorded since the last embedding were taken newest first, so once
    more than a batch of them waited, the highest embedded rowid jumped past the rest, which
    were then never embedded, and not counted as waiting."""
    index = filled(tmp_path / "history.db", turns=4)
    found = index.meaning(HashedWords())
    found.embed(batch=4)
    for n in range(10):
        index.record(
            turn_id=f"late-{n}", session_id="late", project="/work/app", asked=f"x {n}", answered=""
        )
    assert found.waiting() == 10
    assert found.embed(batch=4) == 10
    with found.engine.connect() as conn:
        turns = conn.exec_driver_sql("SELECT count(*) FROM turns").scalar_one()
        vectors = conn.exec_driver_sql("SELECT count(*) FROM turn_vectors").scalar_one()
    assert vectors == turns and found.waiting() == 0


def file_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in directory.iterdir() if p.name.startswith("history.db"))


@pytest.mark.parametrize("how", ["session", "project"])
def test_a_forgotten_turns_vector_is_gone_from_the_table_and_the_file(
    tmp_path: Path, how: str
) -> None:
    index = filled(tmp_path / "history.db", turns=200)
    doomed_text = "zebra quokka narwhal axolotl pangolin okapi"
    index.record(
        turn_id="doomed",
        session_id="doomed",
        project="/work/doomed",
        asked=doomed_text,
        answered="",
    )
    fake = HashedWords()
    index.meaning(fake).embed()
    vector = quantized(fake.embed([doomed_text]))[0].tobytes()
    assert vector in file_bytes(tmp_path)
    if how == "session":
        assert index.forget_session("doomed") == 1
    else:
        assert index.forget_project("/work/doomed") == 1
    engine = index.meaning().engine
    with engine.connect() as conn:
        left = conn.exec_driver_sql("SELECT count(*) FROM turn_vectors").scalar_one()
        turns = conn.exec_driver_sql("SELECT count(*) FROM turns").scalar_one()
    assert left == turns
    index.close()
    assert vector not in file_bytes(tmp_path)


EMBED_SLOWLY = """
import sys, time
from history import HistoryIndex
from history.meaning.embedder import HashedWords

class Slow(HashedWords):
    def embed(self, texts):
        time.sleep(0.15)
        return super().embed(texts)

index = HistoryIndex.open(sys.argv[1])
index.meaning(Slow()).embed(lambda done, left: print(done, flush=True), batch=4)
"""


@pytest.mark.timing_sensitive
def test_the_background_embedding_resumes_after_a_kill(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    filled(path, turns=60).close()
    child = subprocess.Popen(
        [sys.executable, "-c", EMBED_SLOWLY, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert child.stdout is not None
    first = child.stdout.readline()  # a batch is in
    assert first.strip(), "the child embedded nothing"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    index = HistoryIndex.open(path)
    found = index.meaning(HashedWords())
    left = found.waiting()
    assert 0 < left < 66
    assert found.embed() == left
    with found.engine.connect() as conn:
        vectors = conn.exec_driver_sql("SELECT count(*) FROM turn_vectors").scalar_one()
    assert vectors == 66 and found.waiting() == 0


needs_model = pytest.mark.skipif(
    not meaning.installed(), reason="the meaning extra (pip install '.[meaning]') is not installed"
)

PACKAGED_RUN = """
import sys
from history import HistoryIndex
index = HistoryIndex.open(sys.argv[1])  # RECALL_MEANING=1 in its environment
index.meaning().embed()
print(index.search(sys.argv[2], project=None, k=1)[0].turn_id)
"""


@needs_model
def test_the_packaged_model_finds_a_paraphrase_offline(tmp_path: Path) -> None:
    """No network and no model cache: everything comes from the installed packages."""
    path = tmp_path / "history.db"
    filled(path).close()
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "RECALL_MEANING": "1",
        "HF_HOME": str(tmp_path / "no-cache"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    command = [sys.executable, "-c", PACKAGED_RUN, str(path), PARAPHRASE]
    if subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False).returncode == 0:
        command = ["unshare", "-n", *command]  # a network namespace with no way out
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "topic-1", (done.stdout, time.monotonic() - started)


def test_an_expired_turns_vector_goes_with_it_from_the_table_and_the_file(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from history.importers.base import ImportedTurn

    index = filled(tmp_path / "history.db", turns=150)
    old = [
        ImportedTurn(
            turn_id=f"old-{n}",
            session_id=f"old-{n % 3}",
            project="/work/app",
            asked=f"walrus ibex tapir number{n} marmoset",
            answered="",
            files=(),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=datetime.now(UTC) - timedelta(days=400 + n),
        )
        for n in range(120)
    ]
    index.record_many(old)
    fake = HashedWords()
    index.meaning(fake).embed()
    vectors = [quantized(fake.embed([turn.asked]))[0].tobytes() for turn in old[::10]]
    # The upkeep done first: a checkpoint of its own between reading the file and its WAL
    # would leave the vectors in neither read.
    index.tidy()
    assert all(vector in file_bytes(tmp_path) for vector in vectors)
    assert index.retain(30) == 120
    index.tidy()
    with index.meaning().engine.connect() as conn:
        left = conn.exec_driver_sql("SELECT count(*) FROM turn_vectors").scalar_one()
    assert left == index.count()
    index.close()
    raw = file_bytes(tmp_path)
    assert not [vector for vector in vectors if vector in raw]


@pytest.mark.timing_sensitive
def test_a_long_running_process_embeds_the_turns_waiting_in_the_background(
    tmp_path: Path,
) -> None:
    index = filled(tmp_path / "history.db", turns=20)
    found = index.meaning(HashedWords(MEANINGS))
    index.watch()
    deadline = time.monotonic() + 20
    while found.waiting() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert found.waiting() == 0
    assert index.search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"
    index.close()


def test_on_postgresql_a_paraphrase_is_found_and_a_forget_takes_the_vector(
    postgres_url: str,
) -> None:
    index = HistoryIndex.open(postgres_url)
    index.meaning_search = True
    topics(index, "/work/app", "topic", "session")
    found = index.meaning(HashedWords(MEANINGS))
    assert found.embed() == len(TOPICS)
    assert index.search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"
    once = HistoryIndex.open(postgres_url)  # as `recall search`: the vectors read from the table
    once.meaning_once, once.meaning_search = True, True
    once.meaning(HashedWords(MEANINGS))
    for project in (None, "/work/app"):
        assert once.search(PARAPHRASE, project=project, k=1)[0].turn_id == "topic-1"
    once.close()
    assert index.forget_session("session-1") == 1
    with found.engine.connect() as conn:
        left = conn.exec_driver_sql("SELECT count(*) FROM turn_vectors").scalar_one()
    assert left == len(TOPICS) - 1
    assert "topic-1" not in [hit.turn_id for hit in index.search(PARAPHRASE, project=None, k=10)]
    index.close()


def test_search_by_meaning_is_on_where_the_extra_is_installed_unless_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the extra is installed a search blends by default; RECALL_MEANING=0 keeps every
    face to the words; where it is absent, search stays lexical unless RECALL_MEANING=1."""
    monkeypatch.delenv("RECALL_MEANING", raising=False)
    index = filled(tmp_path / "history.db")
    index.meaning(HashedWords(MEANINGS)).embed()
    index.close()

    def reopened() -> HistoryIndex:
        index = HistoryIndex.open(tmp_path / "history.db")
        index.meaning(HashedWords(MEANINGS))
        return index

    monkeypatch.setattr(meaning, "installed", lambda: True)
    assert reopened().search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"
    monkeypatch.setenv("RECALL_MEANING", "0")
    assert not reopened().search(PARAPHRASE, project=None), "RECALL_MEANING=0: the words alone"
    from history.cli.embed import meaning_said

    assert "off: searches keep to the words" in meaning_said(0), "and recall stats says so"
    monkeypatch.delenv("RECALL_MEANING")
    assert meaning_said(0) == "every turn embedded"
    monkeypatch.setattr(meaning, "installed", lambda: False)
    assert not reopened().search(PARAPHRASE, project=None), "without the extra: the words alone"
    monkeypatch.setenv("RECALL_MEANING", "1")
    assert reopened().search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"


class NewModel(HashedWords):
    """Another model (another id): the fake's words, each hashed to another dimension."""

    model_id = "hashed-words-test-2"

    def embed(self, texts: Any) -> Any:
        return super().embed([" ".join(f"{word}2" for word in text.split()) for text in texts])


def models(index: HistoryIndex) -> list[tuple[int, str]]:
    with index.meaning().engine.connect() as conn:
        found = conn.exec_driver_sql("SELECT turn_id, model FROM turn_vectors ORDER BY turn_id")
        return [(int(row), str(model)) for row, model in found]


def test_a_new_model_re_embeds_every_turn_newest_first_and_search_reads_only_its_vectors(
    tmp_path: Path,
) -> None:
    index = filled(tmp_path / "history.db", turns=30)
    index.meaning(HashedWords(MEANINGS)).embed()
    assert index.search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"
    newer = NewModel({f"{w}2": f"{m}2" for w, m in MEANINGS.items()})
    found = index.meaning(newer)
    assert found.waiting() == 36, "every vector is the old model's"
    index.record(turn_id="late", session_id="late", project="/work/app", asked="late", answered="")
    assert found.waiting() == 37
    from history.meaning.vectors import embed_step

    embed_step(found.engine, newer, 6)  # the turn recorded since, then the newest old vectors
    stored = models(index)
    assert [model for _row, model in stored[-6:]] == ["hashed-words-test-2"] * 6
    assert {model for _row, model in stored[:-6]} == {"hashed-words-test"}
    assert found.waiting() == 31
    # Half done: the old model's vectors are not read (their cosines mean nothing to this query).
    near = found.nearest(PARAPHRASE, k=50)
    assert {row for row, _cosine in near} <= {row for row, _model in stored[-6:]}
    assert found.embed(batch=4) == 31 and found.waiting() == 0
    assert {model for _row, model in models(index)} == {"hashed-words-test-2"}
    assert index.search(PARAPHRASE, project=None, k=1)[0].turn_id == "topic-1"


def test_a_search_the_moment_a_new_model_arrives_is_answered_by_the_words(
    tmp_path: Path,
) -> None:
    """Regression: with no vector of the new model yet, the matrix had no columns and the
    query's product with it raised out of every search (the words did not answer)."""
    index = filled(tmp_path / "history.db")
    index.meaning(HashedWords(MEANINGS)).embed()
    found = index.meaning(NewModel())
    assert found.nearest(PARAPHRASE) == []
    index.meaning_search = False
    words = [hit.turn_id for hit in index.search("login passwords", project=None)]
    index.meaning_search = True
    assert [hit.turn_id for hit in index.search("login passwords", project=None)] == words
    assert words[0] == "topic-1"
    index.meaning(Broken())  # and a model that fails beside the words: they answer alone
    assert [hit.turn_id for hit in index.search("login passwords", project=None)] == words


class Broken(HashedWords):
    def embed(self, texts: Any) -> Any:
        raise RuntimeError("the model's session failed")


def test_the_tool_and_the_http_search_keep_to_the_words_when_asked(tmp_path: Path) -> None:
    """`words_only` (tool argument, `?words_only=1`) turns the blend off for one search; left
    out, they follow the index's default, as the CLI does."""
    from fastapi.testclient import TestClient

    from history.api import create_app
    from history.tools.recall_history import RecallHistoryTool
    from tests.helpers.loopback import LOOPBACK

    index = filled(tmp_path / "history.db")  # blended by default here
    index.meaning(HashedWords(MEANINGS)).embed()
    tool = RecallHistoryTool(index, "/work/app")
    answer = tool.run(PARAPHRASE, k=1)
    assert "topic-1" in answer and "1 of them was found by meaning" in answer, answer
    assert "found by meaning" not in tool.run("login passwords", k=1), "the words found it"
    # Regression: masked on the way out while a re-scan is owed, the hits lost their marks.
    index._rescan_pending = lambda: True  # type: ignore[method-assign]
    assert index.search(PARAPHRASE, project=None, k=1).by_meaning == {"topic-1"}
    del index._rescan_pending
    assert "topic-1" not in tool.run(PARAPHRASE, k=1, words_only=True)
    assert tool.run(PARAPHRASE, words_only="yes").startswith("error: words_only")  # type: ignore[arg-type]
    with TestClient(create_app(index), base_url=LOOPBACK) as client:
        url = "/api/code/history"
        blended = client.get(url, params={"q": PARAPHRASE, "k": 1}).json()
        assert [hit["turn_id"] for hit in blended["hits"]] == ["topic-1"]
        assert blended["by_meaning"] == ["topic-1"]
        words = client.get(url, params={"q": PARAPHRASE, "k": 1, "words_only": 1}).json()
        assert words["hits"] == [] and words["by_meaning"] == []
        found = client.get(url, params={"q": "login passwords", "k": 1}).json()
        assert found["hits"][0]["turn_id"] == "topic-1" and found["by_meaning"] == []
    index.meaning_search = False  # the default off: words_only=false asks for the blend
    assert "topic-1" not in tool.run(PARAPHRASE, k=1)
    assert "topic-1" in tool.run(PARAPHRASE, k=1, words_only=False)

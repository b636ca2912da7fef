"""A re-scan masks a turn in the full-text index itself (history/store/sqlite/in_place.py): the
secret's words leave the file's bytes without the whole index being rewritten, the masked turn
is found by its other words as before, and the index stays sound. Its other words' old entries
stay shadowed in old segments: forgetting the turn later rewrites the index, as does masking it
a second time."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

import history.redaction
from history import HistoryIndex
from history.rules_version import RULES_VERSION
from history.store import migrations, rescan
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts, in_place, index_words, segment_keys
from history.store.sqlite.engine import writer
from history.store.sqlite.maintenance import SqliteMaintenance
from tests.helpers.engines import engine_of
from tests.helpers.forgetting import file_bytes
from tests.helpers.rescan_setup import SECRET, TOKEN, older_version, record_leaks_in_one_batch

PROJECT = "/work/masked"
WORDS = ("parser", "parsers", "connect", "connected", "schema", "login", "hash", "Função", "日本語")
# A word of the leaking turn found nowhere else: forgotten with it, it must leave the bytes.
OWN_WORD = "quillzanzibarword"


@pytest.fixture
def rewrites(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The whole-index rewrites begun (a rewrite's first merge asks a negative page count)."""
    begun: list[int] = []
    merge = fts.merge_statement

    def counted(pages: int) -> str:
        if pages < 0:
            begun.append(pages)
        return merge(pages)

    monkeypatch.setattr(fts, "merge_statement", counted)
    yield begun


def password(n: int) -> str:
    return f"Mot de passe : {SECRET}{n}"


def password_and_remote(n: int) -> str:
    return f"Mot de passe : {SECRET}{n} git remote add origin https://{TOKEN}@github.com/a/b.git"


def record_leaks(path: Path, leak: Callable[[int], str] = password) -> None:
    """Plain turns and leaking ones, of words shared between them (two forms of a stem, CJK,
    an accent), recorded under the older rules; the leaks are the newest and the oldest."""
    rng, leaks, plain = random.Random(7), 12, 80
    with older_version():
        index = HistoryIndex.open(path)
        assert index.tidy()
        for n in range(plain + leaks):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12)))
            leaking = n < leaks // 2 or n >= plain + leaks // 2
            index.record(
                turn_id=f"leak-{n}" if leaking else f"plain-{n}",
                session_id=f"s-{n}",
                project=PROJECT,
                asked=f"{words} {leak(n)}" if leaking else words,
                answered=f"{OWN_WORD}{n} {words}" if leaking else words,
            )
        assert index.tidy()
        index.close()


def assert_sound(index: HistoryIndex, turns: int) -> None:
    """FTS5 finds its index equal to the text of every turn, and counts every turn once."""
    with writer(engine_of(index)).begin() as conn:
        conn.exec_driver_sql(fts.integrity_check_statement())
        assert fts.indexed_rows(conn) == turns


def shadowed_turns(index: HistoryIndex) -> set[int]:
    with engine_of(index).connect() as conn:
        return set(conn.execute(text(f"SELECT turn_id FROM {in_place.SHADOWED}")).scalars())


def test_a_rescan_masks_in_place_and_rewrites_no_index(tmp_path: Path, rewrites: list[int]) -> None:
    record_leaks(tmp_path / "history.db")
    assert f"{SECRET}91".encode() in file_bytes(tmp_path)
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.rescan().masked == 12
    assert index.tidy() and not index.purge_pending

    assert not rewrites, "the re-scan owed a rewrite of the whole index"
    raw = file_bytes(tmp_path)
    assert SECRET.encode() not in raw and SECRET[-8:].encode() not in raw
    assert len(shadowed_turns(index)) == 12
    assert not index.search(f"{SECRET}91")
    (hit,) = index.search(f"{OWN_WORD}91")  # found by its other words, shown masked
    assert hit.turn_id == "leak-91" and SECRET not in hit.asked and "[redacted:" in hit.asked
    assert len(index.search("Função", k=200)) == len(index.search("funcao", k=200)) > 0
    assert_sound(index, 92)
    index.close()


def test_a_step_masks_no_more_turns_in_place_than_its_key_lookups_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The segment index's keys are looked up for each word taken out and each segment: a step
    # of many secrets' words over many segments held the lock for a second at 1M turns.
    record_leaks(tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    index._upkeep.close()
    monkeypatch.setattr(segment_keys, "LOOKUPS_A_STEP", 1)  # less than any turn's
    masked = []
    while (step := index._maintenance.rescan_step(nullcontext())).more:
        masked.append(step.masked)
    assert masked.count(1) == 12 and sum(masked) == 12  # one turn a step, never none
    assert len(shadowed_turns(index)) == 12  # each of them in place
    assert not index.search(f"{SECRET}91")
    assert_sound(index, 92)
    index.close()


def test_forgetting_a_turn_masked_in_place_takes_its_shadowed_words(
    tmp_path: Path, rewrites: list[int]
) -> None:
    record_leaks(tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    index.rescan()
    assert index.tidy() and not rewrites
    assert f"{OWN_WORD}3".encode() in file_bytes(tmp_path)  # the masked turn holds it

    assert index.forget_session("s-3") == 1
    assert index.tidy()
    assert rewrites, "the forget of a turn masked in place did not rewrite the index"
    raw = file_bytes(tmp_path)
    assert f"{OWN_WORD}3".encode() not in raw
    assert f"{OWN_WORD}90".encode() in raw  # a turn kept keeps its words
    assert not shadowed_turns(index)  # the rewrite took every shadowed word out
    assert_sound(index, 91)
    index.close()


def test_a_turn_masked_in_place_once_is_masked_the_usual_way_the_next_time(
    tmp_path: Path, rewrites: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rules grow twice: the first re-scan masks the password in place, the second the
    # token; the token's words were the turn's other words then, shadowed in old segments.
    path = tmp_path / "history.db"
    record_leaks(path, password_and_remote)
    with sqlite3.connect(path) as conn:  # recorded by a version older still
        stamp = "UPDATE retention_settings SET keep_days = ? WHERE project = ?"
        conn.execute(stamp, (RULES_VERSION - 2, rescan.VERSION_KEY))
    # No merge meets the record's entries and the first masking's before the second masking
    # (a merge keeps only the newest entry of a turn's word), but the index's rewrite.
    monkeypatch.setattr(SqliteMaintenance, "_merge", lambda self, pages, whole: False)
    monkeypatch.setattr(SqliteMaintenance, "_merge_new_segments", lambda self, writes: None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rescan, "RULES_VERSION", RULES_VERSION - 1)
        patch.setattr(history.redaction, "redact", lambda value: value.replace(SECRET, "[pw]"))
        index = HistoryIndex.open(path)
        assert index.rescan().masked == 12
        assert index.tidy() and not rewrites
        index.close()
    assert TOKEN.encode() in file_bytes(tmp_path) and SECRET.encode() not in file_bytes(tmp_path)

    index = HistoryIndex.open(path)
    assert index.rescan().masked == 12
    assert index.tidy() and rewrites
    raw = file_bytes(tmp_path)
    assert TOKEN.encode() not in raw and TOKEN[-8:].encode() not in raw
    assert_sound(index, 92)
    index.close()


def words_not_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_words.Splitter, "split", lambda self, old, new: None)


def write_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # FTS5 reported its index damaged when a turn deleted in part was deleted again before it
    # was added: whatever it refuses, the step masks the turns the usual way and loses none.
    real: Callable[..., None] = in_place.write_index

    def refused(conn: object, splits: object) -> None:
        real(conn, splits)
        raise DatabaseError("INSERT INTO turns_fts", None, Exception("disk image is malformed"))

    monkeypatch.setattr(in_place, "write_index", refused)


@pytest.mark.parametrize("cause", [words_not_split, write_refused])
def test_turns_not_masked_in_place_are_masked_the_usual_way(
    tmp_path: Path,
    rewrites: list[int],
    monkeypatch: pytest.MonkeyPatch,
    cause: Callable[[pytest.MonkeyPatch], None],
) -> None:
    cause(monkeypatch)
    record_leaks(tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    assert index.rescan().masked == 12
    assert index.tidy() and rewrites  # the usual way owes the index's rewrite
    assert SECRET.encode() not in file_bytes(tmp_path)
    assert not shadowed_turns(index)
    assert_sound(index, 92)
    index.close()


def test_going_back_to_the_version_before_owes_the_rewrite_the_list_stood_for(
    tmp_path: Path, rewrites: list[int]
) -> None:
    # The earlier version keeps no list of the turns masked in place: a forget of one there
    # would not rewrite the index, so the step down owes the rewrite at once.
    path = tmp_path / "history.db"
    record_leaks(path)
    index = HistoryIndex.open(path)
    index.rescan()
    assert index.tidy() and not rewrites
    index.close()
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(path))
    migrations.downgrade(engine, "0021_turn_vectors")
    with engine.connect() as conn:
        owed = conn.execute(text("SELECT rewrite_index FROM owed_scrub")).scalar_one()
    engine.dispose()
    assert owed
    index = HistoryIndex.open(path)  # up again: the rewrite owed is paid
    assert index.tidy() and rewrites
    assert_sound(index, 92)
    index.close()


@pytest.mark.parametrize("looked_up", [True, False], ids=["keys-looked-up", "keys-all-read"])
def test_no_prefix_of_a_secret_stays_in_the_segment_index(
    tmp_path: Path, looked_up: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5 keys each leaf page by a prefix of its first word; when secure-delete took a page's
    # first word out and other words stayed on it, the key kept a prefix of the secret (at 1M,
    # `quokkarescan986` of a planted `quokkarescan98600`).
    monkeypatch.setattr(segment_keys, "KEYS_A_LOOKUP", 0 if looked_up else 1_000_000)
    path = tmp_path / "history.db"
    record_leaks_in_one_batch(str(path), 1500, PROJECT)
    with sqlite3.connect(path) as conn:
        keys = [bytes(key) for (key,) in conn.execute("SELECT term FROM turns_fts_idx")]
    assert any(key.startswith(b"0" + SECRET.encode()) for key in keys)
    index = HistoryIndex.open(path)
    assert index.rescan().masked == 1500
    assert index.tidy()
    assert SECRET.encode() not in file_bytes(tmp_path)
    assert_sound(index, 1500)
    with engine_of(index).connect() as conn:
        found = "SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?"
        assert conn.exec_driver_sql(found, ("zebra",)).scalar() == 1500
        assert conn.exec_driver_sql(found, ("redacted",)).scalar() == 1500
    index.close()


def test_an_index_rebuilt_by_doctor_owes_no_rewrite_for_turns_masked_in_place(
    tmp_path: Path, rewrites: list[int]
) -> None:
    # A rebuild makes the index anew from the turns: no shadowed word is left to rewrite out.
    record_leaks(tmp_path / "history.db")
    index = HistoryIndex.open(tmp_path / "history.db")
    index.rescan()
    assert index.tidy() and shadowed_turns(index)
    with engine_of(index).begin() as conn:  # a row changed behind the triggers' back
        conn.exec_driver_sql("DROP TRIGGER turns_au")
        conn.exec_driver_sql("UPDATE turns SET asked = 'kubernetes rollout' WHERE id = 40")
    assert index.doctor().rebuilt
    assert not shadowed_turns(index)
    assert index.forget_session("s-3") == 1 and index.tidy()
    assert not rewrites
    assert f"{OWN_WORD}3".encode() not in file_bytes(tmp_path)
    assert_sound(index, 91)
    index.close()


def test_turns_another_process_masked_since_they_were_read_are_left_as_they_are(
    tmp_path: Path, rewrites: list[int]
) -> None:
    # Two processes re-scan the same file: a step of the second, holding turns it read before
    # the first masked them in place, sent them the usual way (they were listed by then), which
    # wrote nothing and owed the index's rewrite (at 1M, 10% masked: 442 steps of up to 162 ms).
    record_leaks(tmp_path / "history.db")
    late = HistoryIndex.open(tmp_path / "history.db")
    late._upkeep.close()
    steps = late._maintenance._rescan  # type: ignore[attr-defined]
    with engine_of(late).connect() as conn:
        read = steps._read_next(conn, 0)
    assert len(read.changes) == 12
    first = HistoryIndex.open(tmp_path / "history.db")
    assert first.rescan().masked == 12 and first.tidy()
    first.close()
    with writer(engine_of(late)).begin() as conn:
        assert steps._in_place.write(conn, read.changes, read.prepared) == (0, [])
    assert late.tidy() and not rewrites
    assert_sound(late, 92)
    late.close()

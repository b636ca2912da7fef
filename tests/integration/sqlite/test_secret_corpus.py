"""No secret of any kind reaches the database file, its WAL or a log line, whichever field of a
turn it was pasted into: asked, answered, files, edited, tools, the turn id, the session id or
the project. One index holds the whole corpus (tests/helpers/secret_corpus.py)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from history import HistoryIndex
from tests.helpers.fakes import BrokenTurnRepository
from tests.helpers.secret_corpus import FORMS, Form
from tests.helpers.secret_store import record_form

CORPUS_KINDS = sorted({form.kind for form in FORMS})


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[bool], str]]:
    """Every form recorded once into one index; the bytes are read while it is still open
    (so the WAL still holds what was written) and the log lines of the recording kept."""
    db = tmp_path_factory.mktemp("corpus") / "history.db"
    logged = _LogLines()
    root = logging.getLogger()
    root.addHandler(logged)
    previous = root.level
    root.setLevel(logging.DEBUG)
    try:
        index = HistoryIndex.open(db)
        results = [record_form(index, number, form) for number, form in enumerate(FORMS)]
        # A turn that cannot be written is logged by its id: the id must be masked there too.
        failing = HistoryIndex(BrokenTurnRepository(), full_text=False)
        results_of_failures = [
            record_form(failing, number, form) for number, form in enumerate(FORMS)
        ]
        assert not any(results_of_failures)
        raw = b"".join(path.read_bytes() for path in sorted(db.parent.glob("history.db*")))
        yield db, results, raw.decode("utf-8", "replace") + "\n" + "\n".join(logged.lines)
        index.close()
    finally:
        root.removeHandler(logged)
        root.setLevel(previous)


class _LogLines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_every_turn_of_the_corpus_was_stored(stored: tuple[Path, list[bool], str]) -> None:
    db, results, _ = stored
    assert all(results)
    assert db.with_name("history.db-wal").exists()


@pytest.mark.parametrize("form", FORMS, ids=[f"{form.kind}:{form.name}" for form in FORMS])
def test_no_secret_reaches_the_file_its_wal_or_the_log(
    stored: tuple[Path, list[bool], str], form: Form
) -> None:
    _, _, everything = stored
    assert form.secret not in everything


@pytest.mark.parametrize("kind", CORPUS_KINDS)
def test_each_kind_is_stored_as_its_own_mask(
    stored: tuple[Path, list[bool], str], kind: str
) -> None:
    _, _, everything = stored
    assert f"[redacted:{kind}]" in everything


def test_masked_turns_are_still_found_by_the_words_around_the_secret(
    stored: tuple[Path, list[bool], str],
) -> None:
    db, _, _ = stored
    index = HistoryIndex.open(db)
    try:
        assert [hit.asked for hit in index.search("mysqldump", k=10)] == [
            "asked about mysqldump -h db -u app -p[redacted:cli-password] shop > dump.sql "
            "and the deploy"
        ]
        assert index.search("hooks slack services", k=10)
    finally:
        index.close()

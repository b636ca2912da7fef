"""No secret of the corpus reaches PostgreSQL's files either: every form recorded once, in every
field of a turn, then none of them in the files of the table, its TOAST table or their indexes
(the full-text vectors' lexemes included, which are lower-cased)."""

from __future__ import annotations

from history import HistoryIndex
from tests.helpers.pg_files import relation_bytes
from tests.helpers.secret_corpus import FORMS
from tests.helpers.secret_store import record_form


def test_no_secret_of_the_corpus_reaches_the_relation_files(postgres_url: str) -> None:
    index = HistoryIndex.open(postgres_url)
    stored = [record_form(index, number, form) for number, form in enumerate(FORMS)]
    index.close()
    assert all(stored)
    raw = relation_bytes(postgres_url).decode("utf-8", "replace")
    assert "[redacted:" in raw  # the turns are there, masked
    lowered = raw.lower()
    reached = [f"{form.kind}:{form.name}" for form in FORMS if form.secret.lower() in lowered]
    assert reached == []

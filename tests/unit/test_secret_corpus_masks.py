"""Every form of the secret corpus (tests/helpers/secret_corpus.py) is masked by the mask of its
kind, and masking twice changes nothing; tests/integration/sqlite/test_secret_corpus.py checks
that none of them reaches the database file, its WAL or a log line."""

from __future__ import annotations

import pytest

from history.redact import KINDS, redact
from tests.helpers.secret_corpus import FORMS, Form

CORPUS_KINDS = sorted({form.kind for form in FORMS})


def test_the_corpus_covers_at_least_a_hundred_kinds() -> None:
    assert len(CORPUS_KINDS) >= 100
    assert set(CORPUS_KINDS) <= set(KINDS)


@pytest.mark.parametrize("form", FORMS, ids=[f"{form.kind}:{form.name}" for form in FORMS])
def test_a_secret_is_masked_by_its_kind(form: Form) -> None:
    masked = redact(form.text)
    assert form.secret not in masked
    assert f"[redacted:{form.kind}]" in masked
    assert redact(masked) == masked

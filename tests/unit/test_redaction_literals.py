"""Redaction looks for its rules' literals in one pass: it must find exactly what testing each
literal with `in` finds, and mask exactly what trying every rule whose literal is there masks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history.redaction import _TOKEN_SCANS, _WORD_SCANS, redact
from history.redaction.rule import Rule
from history.redaction.scanning import Scans
from tests.helpers.secret_samples import FRAGMENTS, SECRETS

LITERALS = sorted(_TOKEN_SCANS.literals | _WORD_SCANS.literals)
SECRET_TEXTS = [text for text, _, _ in SECRETS]
pieces = st.one_of(
    st.sampled_from(LITERALS),
    st.sampled_from(FRAGMENTS),
    st.sampled_from(SECRET_TEXTS),
    st.text(max_size=4),
)
text_with_literals = st.lists(pieces, max_size=40).map("".join)


def tried_one_by_one(text: str) -> str:
    """Redaction as it was before the one-pass search: each literal tested with `in`."""

    def scanned(text: str, scans: Scans) -> str:
        for literal, _, scan, pattern in scans.scans:
            if literal is None or literal in text:
                text = scan(pattern, text)
        return text

    if any(len(chunk) >= 16 for chunk in text.split()):
        text = scanned(text, _TOKEN_SCANS)
    return scanned(text, _WORD_SCANS)


@given(text_with_literals)
def test_one_pass_finds_every_literal_a_text_holds(text: str) -> None:
    for scans in (_TOKEN_SCANS, _WORD_SCANS):
        assert scans.held(text) == {literal for literal in scans.literals if literal in text}


@given(text_with_literals)
def test_redaction_masks_what_trying_each_rules_literal_masks(text: str) -> None:
    if len(text) <= 4_000:
        assert redact(text) == tried_one_by_one(text)


def test_a_mask_that_brings_a_literal_gets_the_rules_of_that_literal() -> None:
    # The token's mask adds text the original did not hold; the scans after it see the new text.
    for text in SECRET_TEXTS:
        joined = f"{text} and {text}: password = {text}"
        assert redact(joined) == tried_one_by_one(joined)


def test_a_pattern_with_nothing_to_look_for_is_refused() -> None:
    # Such a pattern would be tried on every text, whatever it holds.
    unanchored = Rule("example", (re.compile(r"[0-9]{8}:secret"),))
    with pytest.raises(ValueError, match="nothing to look for"):
        Scans((unanchored,))

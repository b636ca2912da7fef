"""Redaction looks for its rules' literals in one pass: it must find exactly what testing each
literal with `in` finds, and mask exactly what trying every rule whose literal is there masks."""

from __future__ import annotations

import re
import subprocess
import sys
from re import _constants as sre
from re import _parser
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history.redaction import _TOKEN_SCANS, _WORD_SCANS, RULES, redact
from history.redaction.rule import Rule, lazy
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
    unanchored = Rule("example", (lazy(r"[0-9]{8}:secret"),))
    with pytest.raises(ValueError, match="nothing to look for"):
        Scans((unanchored,))


def _literal_prefix(parsed: Any) -> tuple[str, bool]:
    """The characters every match of a parsed pattern starts with, read from the parser's own
    tree (not from the pattern's text, as `anchor` reads it), and whether that is all of it."""
    found = ""
    for op, value in parsed:
        if op is sre.LITERAL:
            found += chr(value)
        elif op is sre.SUBPATTERN and not value[1] & re.IGNORECASE:
            inner, whole = _literal_prefix(value[3])
            found += inner
            if not whole:
                return found, False
        else:
            return found, False
    return found, True


def test_every_patterns_literal_starts_every_match_it_can_have() -> None:
    """What both the one-pass search and the compiling on first use stand on: a text without a
    pattern's literal holds no match of it, so it need not be tried (nor compiled)."""
    for rule in RULES:
        for pattern in rule.patterns:
            parsed = _parser.parse(pattern.pattern)
            prefix = "" if parsed.state.flags & re.IGNORECASE else _literal_prefix(parsed)[0]
            if pattern.literal is not None:
                assert prefix.startswith(pattern.literal), (rule.kind, pattern.pattern)


def test_an_alternation_has_no_literal_to_start_at() -> None:
    # `anchor` reads the pattern's text: a top-level `|` would make `ab` a wrong literal.
    pattern = lazy(r"ab[0-9]+|cd[0-9]+")
    assert _literal_prefix(_parser.parse(pattern.pattern))[0] == ""
    assert pattern.literal is None or pattern.literal == "ab"  # the test above would catch "ab"


COMPILED = """
import sys
from history.redaction import RULES, redact
before = sum(p._compiled is not None for r in RULES for p in r.patterns)
masked = redact(sys.argv[1])
after = sum(p._compiled is not None for r in RULES for p in r.patterns)
print(before, after, sum(len(r.patterns) for r in RULES), masked)
"""


def _compiled_after(text: str) -> tuple[int, int, int, str]:
    out = subprocess.run(
        [sys.executable, "-c", COMPILED, text], capture_output=True, text=True, check=True
    ).stdout.split(" ", 3)
    return int(out[0]), int(out[1]), int(out[2]), out[3].strip()


def test_a_process_that_redacts_a_short_turn_compiles_only_the_patterns_its_words_call_for() -> (
    None
):
    """Compiling the ~300 patterns took ~150 ms of each hook; a turn needs a few of them."""
    before, after, total, masked = _compiled_after("how should the login hash passwords")
    assert (before, masked) == (0, "how should the login hash passwords")
    assert after <= 3 < total
    before, after, total, masked = _compiled_after("my password is Hunter2!x, keep it")
    assert masked == "my password is [redacted:password], keep it"
    assert after <= 5 < total


def test_a_long_text_compiles_only_the_patterns_whose_literal_it_holds() -> None:
    text = ("the parser reads each line of the config file and checks it. " * 80)[:4_500]
    before, after, total, masked = _compiled_after(text)
    assert (before, masked) == (0, text)
    assert after <= 10 < total

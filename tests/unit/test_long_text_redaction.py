"""A long text is tried with each pattern only where the pattern's literal occurs: it must come
out exactly as trying every pattern over the whole text, one after the other, makes it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from history.redaction import _TOKEN_SCANS, _WORD_SCANS, _long_scans, redact
from history.redaction.hits import DENSE, LiteralHits
from history.redaction.rule import Edit, applied
from tests.helpers.hostile_inputs import HOSTILE
from tests.helpers.secret_corpus import FORMS
from tests.helpers.secret_samples import FRAGMENTS, SECRETS

LITERALS = _long_scans().literals
FINDER = _long_scans().finder


def every_pattern_over_the_whole(text: str) -> str:
    """What a long text came out as before: each pattern tried over all of it, in order."""
    for _, _, scan, pattern in (*_TOKEN_SCANS.scans, *_WORD_SCANS.scans):
        text = scan(pattern, text)
    return text


pieces = st.one_of(
    st.sampled_from(LITERALS),
    st.sampled_from(FRAGMENTS),
    st.sampled_from([text for text, _, _ in SECRETS]),
    st.sampled_from([form.text for form in FORMS]),
    st.sampled_from([" ", "\n", "=", ": ", '"', "'", "[redacted:secret]\n", "😀"]),
    st.text(max_size=6),
)
filler = st.sampled_from(["a", " ", "x1", "A", "\n", "-"]).map(lambda run: run * 5_000)
long_texts = st.lists(st.one_of(pieces, filler), min_size=1, max_size=60).map(
    lambda parts: "".join(parts).ljust(4_001, "z")
)


@settings(max_examples=150, deadline=None)
@given(long_texts)
def test_a_long_text_is_masked_as_every_pattern_over_the_whole_masks_it(text: str) -> None:
    assert redact(text) == every_pattern_over_the_whole(text)


def test_every_hostile_text_is_masked_as_every_pattern_over_the_whole_masks_it() -> None:
    for text in HOSTILE.values():
        assert redact(text[:100_000]) == every_pattern_over_the_whole(text[:100_000])


def test_a_text_of_every_literal_over_and_over_is_tried_with_every_pattern() -> None:
    # Each literal a few hundred times: more places than are worth following, so all are dense.
    text = " ".join(LITERALS) * 300
    hits = LiteralHits(LITERALS, FINDER, text)
    assert all(hits.starts(literal) is DENSE for literal in range(len(LITERALS)))
    assert redact(text) == every_pattern_over_the_whole(text)


def test_a_long_text_with_a_lone_surrogate_is_masked_all_the_same() -> None:
    # The literal search reads UTF-8, which cannot hold a lone surrogate: `redact` replaces one
    # with U+FFFD first.
    text = "\ud800 password: hunter2hunter2 " + "ghp_" + "a1B2" * 9 + " " + "x" * 5_000
    assert redact(text) == every_pattern_over_the_whole(text.replace("\ud800", "\ufffd"))
    assert "hunter2hunter2" not in redact(text)


def places(hits: LiteralHits) -> list[list[int] | None]:
    return [hits.starts(literal) for literal in range(len(LITERALS))]


def edits_of(draw: st.DrawFn, text: str) -> list[Edit]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    replacement = st.sampled_from(["[redacted:password]", "[redacted:pass]", "k", "ghp_"])
    spans = list(zip(cuts[::2], cuts[1::2], strict=False))
    # A decision may mask from before where the mask ahead of it ended (`applied` then keeps
    # what lies between twice), as a rule's edits can.
    backwards = draw(st.lists(st.booleans(), min_size=len(spans), max_size=len(spans)))
    return [
        (end, start, draw(replacement)) if back else (start, end, draw(replacement))
        for (start, end), back in zip(spans, backwards, strict=True)
    ]


@st.composite
def texts_and_rounds_of_edits(draw: st.DrawFn) -> tuple[str, list[list[Edit]]]:
    text = original = draw(st.lists(pieces, min_size=1, max_size=40).map("".join))
    rounds = []
    for _ in range(draw(st.integers(1, 4))):
        rounds.append(edits_of(draw, text))
        text = applied(text, rounds[-1])
    return original, rounds


@settings(max_examples=300)
@given(texts_and_rounds_of_edits())
def test_places_followed_through_masks_are_the_places_found_afresh(
    text_and_rounds: tuple[str, list[list[Edit]]],
) -> None:
    text, rounds = text_and_rounds
    hits = LiteralHits(LITERALS, FINDER, text)
    for edits in rounds:
        if edits:
            text = applied(text, edits)
            hits.after(text, edits)
    afresh = LiteralHits(LITERALS, FINDER, text)
    for followed, found in zip(places(hits), places(afresh), strict=True):
        if followed is not DENSE and found is not DENSE:
            assert followed == found


def test_places_followed_through_thousands_of_masks_are_the_places_found_afresh() -> None:
    unit = "password=ghp_x; "
    text = unit * 3_000
    edits: list[Edit] = [
        (at + 9, at + 14, "[redacted:github-token]") for at in range(0, len(text), len(unit))
    ]
    hits = LiteralHits(LITERALS, FINDER, text)
    text = applied(text, edits)
    hits.after(text, edits)
    assert places(hits) == places(LiteralHits(LITERALS, FINDER, text))


def test_a_mask_replaces_its_own_span_not_an_earlier_copy_of_it() -> None:
    assert applied("x1 secret=x1", [(10, 12, "[redacted:secret]")]) == "x1 secret=[redacted:secret]"
    assert applied("secret=x1 x1", [(7, 9, "[redacted:secret]")]) == "secret=[redacted:secret] x1"

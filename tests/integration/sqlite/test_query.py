"""Any text searches safely on both paths (FTS5 and LIKE), and the words a query splits into are
the words FTS5 indexes."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
import sqlean
from hypothesis import given, settings
from hypothesis import strategies as st

from history import HistoryIndex
from history.folding import fold_marks
from history.query import words
from history.store.sqlite import fts
from tests.helpers.templates import migrated_copy


@contextmanager
def opened_index(full_text: bool) -> Iterator[HistoryIndex]:
    with TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        if not full_text:
            patch.setattr(fts, "fts5_available", lambda conn: False)
        index = HistoryIndex.open(migrated_copy(Path(tmp) / "history.db", full_text=full_text))
        assert index.full_text is full_text
        index.record(
            turn_id="t", session_id="s", project="/p", asked="AND OR NOT NEAR login", answered="ok"
        )
        try:
            yield index
        finally:
            index.close()


hostile = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from(['"', "'", "*", "^", "-", ":", "(", ")", "\x00", " ", "a"])),
    st.sampled_from(["AND", "OR", "NOT", "NEAR", "NEAR(a b)", "a:b", "-x", '"', "😀", "日本"]),
)


@pytest.mark.parametrize("full_text", [True, False], ids=["fts5", "like"])
def test_any_text_searches_without_an_exception(full_text: bool) -> None:
    # One index for every example: searching never writes, so the examples cannot meet.
    with opened_index(full_text) as index:

        @settings(max_examples=150)
        @given(query=st.lists(hostile, min_size=1, max_size=6).map(" ".join))
        def searches(query: str) -> None:
            assert [hit.turn_id for hit in index.search(query, project=None)] in ([], ["t"])

        searches()


@pytest.mark.parametrize("full_text", [True, False], ids=["fts5", "like"])
def test_huge_and_nul_queries_search(full_text: bool) -> None:
    with opened_index(full_text) as index:
        assert index.search("x" * 100_000) == []
        assert index.search("\x00" * 1000 + "login")[0].turn_id == "t"
        assert len(index.search(("login 😀 " * 200_000)[:1_000_000])) == 1


def test_query_words_fold_as_fts5_folds_latin_and_cyrillic_letters() -> None:
    """The query side mirrors `unicode61 remove_diacritics 2` letter by letter (Latin-1,
    Latin Extended-A and Cyrillic: the alphabets of the languages recall speaks), but the long s,
    which FTS5 reads as s."""
    letters = [
        chr(cp)
        for cp in [*range(0xC0, 0x180), *range(0x400, 0x500)]
        if unicodedata.category(chr(cp)) in ("Lu", "Ll")
    ]
    conn = sqlean.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", [(ord(c), f"q{c}q") for c in letters])
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    indexed = {chr(doc): term[1:-1] for term, doc in conn.execute("SELECT term, doc FROM v")}
    differ = {c for c in letters if fold_marks(c) != indexed[c]}
    assert differ == {"ſ"}
    assert fold_marks("Новый объём, Função, ÉCOLE") == "новый объём, funcao, ecole"


# The letters of the languages recall speaks in spaced scripts (Latin-1, Latin Extended-A/B but
# the ligatures and a few letters FTS5 keeps whole, Vietnamese, Cyrillic), lone diacritics,
# punctuation and spaces.
SPOKEN_LETTERS = st.text(
    st.characters(
        max_codepoint=0x024F,
        exclude_characters="\u0130\u017f\u00b5ǠǡǢǣǼǽǾǿĲĳĿŀŉǄǅǆǇǈǉǊǋǌǱǲǳ",
        exclude_categories=("Cn", "Cs"),
    )
    | st.characters(min_codepoint=0x0300, max_codepoint=0x036F)
    | st.characters(min_codepoint=0x0400, max_codepoint=0x04FF, exclude_categories=["Cn"])
    | st.characters(min_codepoint=0x1EA0, max_codepoint=0x1EF9)
    | st.sampled_from(" .,-"),
    max_size=30,
)


@given(SPOKEN_LETTERS)
def test_any_text_splits_into_the_words_fts5_indexes(body: str) -> None:
    conn = sqlean.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    conn.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (body,))
    indexed = sorted(term for (term,) in conn.execute("SELECT term FROM v"))
    assert sorted(words(body)) == indexed

"""A masked turn's old words split for the index (history/store/sqlite/index_words.py): the words
given to secure-delete and those given to FTS5's usual delete are the turn's old words, each
once and in its column; the secret's words are none of the masked text's, and every old word
the masked text lost is among them. Text of any script, accents, emoji and private-use
characters splits."""

from __future__ import annotations

import sqlite3
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from history.query import index_text
from history.store.sqlite import fts, index_words
from history.store.sqlite.connection import sqlite_driver

SPLITTER = index_words.Splitter()
WORDS = st.sampled_from(
    [
        "parser",
        "parsers",
        "connected",
        "connect",
        "agreed",
        "login_hash",
        "Função",
        "ÉCOLE",
        "日本語の修正",
        "v2.3.1",
        "x=1",
        "naïve",
        "e\u0301t\u00e9",
        "ß",
        "\u0130stanbul",
        "🙂",
        "🚀done",
        "\ue000pua",
        "Ⅻ",
        "sk-proj-Abc123",
        "",
    ]
)
SEPARATORS = st.sampled_from([" ", "\n", ": ", "/", "-", "_", "'", ", "])


@st.composite
def text_of_words(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.one_of(WORDS, st.text(max_size=8)), max_size=12))
    return "".join(word + draw(SEPARATORS) for word in words)


def words_of(conn: sqlite3.Connection, value: str) -> list[str]:
    """The index's words of a text, from an FTS5 table of its tokenizer."""
    conn.execute("DELETE FROM cut")
    conn.execute("INSERT INTO cut (rowid, x) VALUES (1, ?)", (index_text(value),))
    return [term for (term,) in conn.execute("SELECT term FROM cut_at ORDER BY offset")]


def tokenizer() -> sqlite3.Connection:
    conn: sqlite3.Connection = sqlite_driver().connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE cut USING fts5(x, tokenize='{fts.DEFAULT_TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE cut_at USING fts5vocab(cut, instance)")
    return conn


@given(st.lists(text_of_words(), min_size=4, max_size=4), st.data())
def test_the_split_gives_each_old_word_once(old: list[str], data: st.DataObject) -> None:
    column = data.draw(st.integers(0, 3))
    new = list(old)
    cut = data.draw(st.integers(0, len(old[column])))
    new[column] = old[column][:cut] + " [redacted:password]"
    split = SPLITTER.split(old, new)
    assert split is not None
    conn = tokenizer()
    new_words = {word for value in new for word in words_of(conn, value)}
    lost = {word for value in old for word in words_of(conn, value)} - new_words
    secret = set()
    for n in range(4):
        given_back = words_of(conn, split.secret[n]) + words_of(conn, split.kept[n])
        assert Counter(given_back) == Counter(words_of(conn, old[n]))
        secret |= set(words_of(conn, split.secret[n]))
        assert split.masked[n] == index_text(new[n])
    assert secret == lost
    assert not secret & new_words

"""A query as people type it: its terms, the FTS5 MATCH built from them, the words a text
splits into, and the excerpt around the first match (no database: the searches themselves are
tests/integration/sqlite/test_query.py's)."""

from __future__ import annotations

import pytest

from history.query import MAX_QUERY_WORDS, excerpt, fts_match, terms, words


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("login function", ["login", "function"]),
        ("login_user", ["login", "user"]),
        ("LoginUser", ["loginuser"]),
        ("what did we decide about the login?", ["decide", "login"]),
        ("Função de autenticação", ["funcao", "autenticacao"]),
        ("die Datenbank und der Index", ["datenbank", "index"]),
        ('"AND" OR NOT NEAR(x)', ["near", "x"]),
        ("-*^:()", []),
        ("the of and", []),
        ("", []),
        ("a\x00b login", ["b", "login"]),
        ("😀 日本語 テスト", ["日本", "本語", "テス", "スト"]),
        ("login login LOGIN", ["login"]),
        ("logins login logged", ["logins", "login", "logged"]),
        ("login_userの修正", ["login", "user", "の修", "修正"]),
        ("로그인 함수", ["로그", "그인", "함수"]),
        ("锁", ["锁"]),
    ],
)
def test_terms(query: str, expected: list[str]) -> None:
    assert terms(query) == expected


@pytest.mark.parametrize(
    ("query_terms", "expected"),
    [
        (["login"], '"login"'),
        (["login", "user"], '"login" OR "user"'),
        (['a"b'], '"a""b"'),
        (["AND"], '"AND"'),
    ],
)
def test_fts_match_quotes_every_term(query_terms: list[str], expected: str) -> None:
    assert fts_match(query_terms) == expected


def test_long_queries_keep_a_bounded_number_of_terms() -> None:
    query = " ".join(f"word{n}" for n in range(10_000))
    assert len(terms(query)) == MAX_QUERY_WORDS


def test_words_split_identifiers_and_fold() -> None:
    assert words("src/auth/test_login.py Ñandú") == ["src", "auth", "test", "login", "py", "nandu"]


def test_excerpt_is_centred_on_the_first_match_with_ellipses() -> None:
    text = "alpha " * 100 + "the login function hashes" + " omega" * 100
    cut = excerpt(text, ["login"], width=80)
    assert cut.startswith("…") and cut.endswith("…")
    assert "login" in cut and len(cut) <= 82
    middle = cut.index("login") / len(cut)
    assert 0.3 < middle < 0.7


def test_excerpt_of_short_text_is_the_text_flattened() -> None:
    assert excerpt("a\n\n  b", ["b"]) == "a b"


def test_excerpt_matches_folded_words() -> None:
    text = "x " * 300 + "Função" + " y" * 300
    assert "Função" in excerpt(text, ["funcao"], width=60)

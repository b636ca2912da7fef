"""A search's tsqueries composed as text (word_texts.py) are the ones PostgreSQL's own operators
make (`&&`, `||`, `!!`), with an empty word's tsquery and a word its parser splits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, create_engine, text

from history.store.postgres import schema, word_texts
from history.store.postgres.engine import normalized_url

# The parser reads `12e5abc` as two lexemes, and a word past 2,047 characters as none (an empty
# tsquery, which PostgreSQL's operators leave out).
WORDS = ["login", "12e5abc", "flow", "x9", "x" * 3_000]

Tree = Any
TREES = st.recursive(
    st.integers(0, len(WORDS) - 1),
    lambda kids: st.one_of(
        st.tuples(st.just("and"), kids, kids),
        st.tuples(st.just("or"), kids, kids),
        st.tuples(st.just("not"), kids),
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def engine(postgres_url_for_module: str) -> Iterator[Engine]:
    made = create_engine(normalized_url(postgres_url_for_module))
    yield made
    made.dispose()


def composed(tree: Tree, texts: list[str]) -> str:
    if isinstance(tree, int):
        return texts[tree]
    if tree[0] == "not":
        return word_texts.negated(composed(tree[1], texts))
    left, right = composed(tree[1], texts), composed(tree[2], texts)
    return word_texts.both(left, right) if tree[0] == "and" else word_texts.either([left, right])


def operators(tree: Tree) -> str:
    if isinstance(tree, int):
        return schema.word_query(f":w{tree}")
    if tree[0] == "not":
        return f"!!({operators(tree[1])})"
    return f"({operators(tree[1])} {'&&' if tree[0] == 'and' else '||'} {operators(tree[2])})"


@given(tree=TREES)
def test_a_composed_tsquery_is_the_one_postgresql_s_operators_make(
    engine: Engine, tree: Tree
) -> None:
    params: dict[str, Any] = {f"w{n}": word for n, word in enumerate(WORDS)}
    with engine.connect() as conn:
        texts = word_texts.read(conn, WORDS, None).plain
        params["bound"] = composed(tree, texts)
        made, bound = conn.execute(
            text(f"SELECT CAST({operators(tree)} AS text), CAST(CAST(:bound AS tsquery) AS text)"),
            params,
        ).one()
    assert bound == made


def test_each_word_s_tsquery_is_read_in_the_order_given(engine: Engine) -> None:
    with engine.connect() as conn:
        texts = word_texts.read(conn, WORDS, "/some/project")
    assert texts.plain == ["'login'", "'12e5' & 'abc'", "'flow'", "'x9'", ""]
    assert texts.in_question[4] == texts.anywhere[4] == ""
    assert texts.in_question[0] == "'login':A"
    assert texts.anywhere[0].endswith("wlogin'") and texts.asked[0].endswith("qlogin'")

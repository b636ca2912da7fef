"""A project-scoped search asks the index of each turn's words within its project
(project_index.py): the index holds exactly the turn's words and its question's words under the
project's prefix, a search in one project never reaches another's turns (a word PostgreSQL's
parser splits included), and its top 5 is the exhaustive ranking's."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from history import HistoryIndex
from history.folding import strip_marks
from history.importers.base import ImportedTurn
from history.store.postgres import project_index, question_index, schema, search, word_texts
from history.store.search_plan import Window
from tests.helpers.engines import engine_of
from tests.helpers.pg_oracle import exhaustive
from tests.helpers.postgres import ranking_statements

WORDS = ["login", "flow", "cache", "token", "retry", "12e5abc", "café", "snake_case_name"]
PROJECTS = ["/a", "/b", "/c"]


def text_of(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


@pytest.fixture(scope="module")
def index(postgres_url_for_module: str) -> Any:
    opened = HistoryIndex.open(postgres_url_for_module)
    rng, now = random.Random(17), datetime.now(UTC)
    turns = [
        ImportedTurn(
            turn_id=f"t{n}",
            session_id=f"s{n // 10}",
            project=PROJECTS[n % 3],
            asked=text_of(rng, rng.randint(1, 5)),
            answered=text_of(rng, rng.randint(0, 20)),
            files=(f"src/{rng.choice(WORDS)}.py",) if n % 4 else (),
            edited=(),
            tools=(),
            tainted=False,
            asked_at=now - timedelta(minutes=n),
        )
        for n in range(450)
    ]
    assert opened.record_many(turns).new == 450
    yield opened
    opened.close()


def held(index: HistoryIndex, turn_id: str) -> tuple[set[str], set[str], set[str], str]:
    """The index's lexemes of a turn, the vector's, the question's (weight A) and its project."""
    with engine_of(index).connect() as conn:
        row = conn.execute(
            text(
                f"SELECT tsvector_to_array({project_index.PROJECT_WORDS}),"
                f" tsvector_to_array({schema.VECTOR_COLUMN}),"
                f" tsvector_to_array(ts_filter({schema.VECTOR_COLUMN}, '{{a}}')), project"
                " FROM turns WHERE turn_id = :id"
            ),
            {"id": turn_id},
        ).one()
    return set(row[0]), set(row[1]), set(row[2]), str(row[3])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(min_value=0, max_value=449))
def test_the_index_holds_each_word_and_each_question_word_within_its_project(
    index: HistoryIndex, n: int
) -> None:
    lexemes, vector, asked, project = held(index, f"t{n}")
    anywhere = project_index.prefix(project, project_index.ANYWHERE)
    in_question = project_index.prefix(project, project_index.ASKED)
    assert asked and asked < vector
    assert lexemes == {anywhere + w for w in vector} | {in_question + w for w in asked}


def project_of(index: HistoryIndex, turn_ids: list[str]) -> set[str]:
    with engine_of(index).connect() as conn:
        found = conn.execute(
            text("SELECT DISTINCT project FROM turns WHERE turn_id = ANY(:ids)"), {"ids": turn_ids}
        )
        return {str(project) for (project,) in found}


QUERIES = [
    ["login"], ["12e5abc"], ["café", "token"], ["snake", "case", "name"],
    ["login", "flow", "retry"], ["cache", "12e5abc", "flow", "token"], ["nothing", "login"],
]  # fmt: skip


@pytest.mark.parametrize("one_statement", [0, search.ONE_STATEMENT_ROWS], ids=["parts", "one"])
@pytest.mark.parametrize("project", PROJECTS)
@pytest.mark.parametrize("words", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_a_project_search_asks_its_projects_index_for_the_exhaustive_top_5(
    index: HistoryIndex,
    words: list[str],
    project: str,
    one_statement: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "ONE_STATEMENT_ROWS", one_statement)
    statements, found = ranking_statements(index, " ".join(words), project)
    turn_ids = [hit.turn_id for hit in found]
    # The search folds `café` as the index does (strip_marks); the exhaustive query does not.
    assert turn_ids == exhaustive(index, [strip_marks(word) for word in words], project)
    assert project_of(index, turn_ids) <= {project}
    # Every part but the repeats' (the question's index, its lists short) asks the project's
    # own index, never the whole table's with the project's tag.
    for statement in statements:
        if f"{question_index.QUESTION_WORDS} @@" not in statement:
            assert project_index.PROJECT_WORDS in statement
            assert f"{schema.VECTOR_COLUMN} @@" not in statement


def matched_by_each_part(
    index: HistoryIndex, words: list[str], project: str, in_project: bool = True
) -> list[set[int]]:
    """The turns each part's condition matches (no window, no LIMIT), every part's: the pairs
    part, then each word's head and tail, alone or not, with no company and with each other
    word's; with the project's own index when `in_project`, else the whole table's and the tag."""
    weight = dict.fromkeys(words, 1.0)
    conditions: list[tuple[str, dict[str, Any]]] = []

    def noted(conn: Any, where: str, params: dict[str, Any]) -> dict[int, float]:
        conditions.append((where, params))
        return {}

    count = len(words)
    with engine_of(index).connect() as conn:
        texts = word_texts.read(conn, words, project)
        asked = search._ProjectWords(texts) if in_project else search._WholeTable(texts)
        part = search._Part(words, weight, project, None, 5, asked)
        part._best = noted  # type: ignore[method-assign]
        if count > 1:
            part.ranked(conn, -1, True, Window.whole())
        for i in range(count):
            for head in (True, False):
                for alone in (False, True):
                    for needed in [None, *[[(j,)] for j in range(count) if j != i]]:
                        part.ranked(conn, i, head, Window.whole(), alone, needed)
        return [
            {rowid for (rowid,) in conn.execute(text(f"SELECT id FROM turns WHERE {w}"), p)}
            for w, p in conditions
        ]


@pytest.mark.parametrize("project", PROJECTS)
@pytest.mark.parametrize("words", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_each_part_matches_the_same_turns_as_the_whole_tables_index_with_the_tag(
    index: HistoryIndex, words: list[str], project: str
) -> None:
    words = [strip_marks(word) for word in words]
    in_project = matched_by_each_part(index, words, project)
    # The whole table's statements: the same parts, the project as the tag in the tsquery.
    assert in_project == matched_by_each_part(index, words, project, in_project=False)
    assert any(in_project)

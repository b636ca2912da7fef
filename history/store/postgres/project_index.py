"""A GIN index of each turn's words within its project, since revision 0015: what a
project-scoped search asks instead of intersecting a word's list with the project tag's.

In the whole-table indexes, one project's turns holding a word are found by walking the word's
posting list beside the project tag's (50,000-130,000 entries at 1M turns), decoded whole: a
head part with company in the largest project cost 10-20 ms of GIN work to return a handful of
rows. This index holds every word of the turn as `<md5(project)>w<word>` and every word of its
question as `<md5(project)>q<word>`: each such lexeme's list is the project's turns holding the
word, and nothing else is walked (1.4 ms instead of 21 for that part).

`recall_project_words(search_vector, project)` is built from the vector with PostgreSQL's own
array functions (no subquery, no parser): the question's words are the vector's weight-A
lexemes. A project's prefix is md5 of its path, as its tag is (schema.TAG_EXPRESSION). The
repeats of question_index.py are not here: a project's search asks the question's index for them
(their lists are short).
"""

from __future__ import annotations

import hashlib

from history.store.postgres import schema

FUNCTION = "recall_project_words"
INDEX = "ix_turns_project_words"
# What the index holds, as the search spells it (the planner matches the index by this text).
PROJECT_WORDS = f"{FUNCTION}({schema.VECTOR_COLUMN}, project)"
# After the project's md5: a word anywhere in the turn, a word of its question.
ANYWHERE, ASKED = "w", "q"


def index_statement() -> str:
    """The index as revision 0015 made it (over `recall_project_words`, which it made too)."""
    return f"CREATE INDEX IF NOT EXISTS {INDEX} ON turns USING gin (({PROJECT_WORDS}))"


def prefix(project: str, marker: str) -> str:
    """The prefix of the project's lexemes in the index: its md5, then `marker`."""
    return hashlib.md5(project.encode("utf-8"), usedforsecurity=False).hexdigest() + marker


def word_query(word: str, prefix: str) -> str:
    """SQL for the tsquery of one of our words (a bound parameter) in one project: the
    lexemes PostgreSQL's parser reads in it (schema.word_query), each prefixed with the
    project's `prefix` (a bound parameter). Our words hold only letters and digits: no quote
    is inside a lexeme."""
    return (
        f"CAST(regexp_replace(CAST({schema.word_query(word)} AS text),"
        f" '''([^'']+)''', '''' || {prefix} || '\\1''', 'g') AS tsquery)"
    )

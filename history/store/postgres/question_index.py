"""The question's own GIN index, since revision 0013: the question's words, the project's tag,
and `r_<word>` for each word the question holds more than once.

ts_rank weighs a word's occurrences by 1/n² in the vector's order, the question's first
(search.py). A turn whose question holds a query word once scores at most ONCE_CEILING for it
(its later occurrences are in the file names, weight 0.4, or the answer, 0.3), where one whose
question repeats it reaches up to 1. So a search ranks first the few turns repeating a query word
in their question, and then every other turn holding a word in its question has the lower
ceiling: once the k-th best score passes it, only the turns with enough company are read
(search_bounds.py). At 1M turns a project's own identifier was in the question of 3,342 of its
turns, 369 of them repeating it: the best five were among those 369.

Words PostgreSQL's parser splits (`12e5abc`: `12e5`, `abc`) have no such lexeme (its tsquery is
two lexemes): for them, search keeps the ceiling of 1 (`single_lexemes`).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, text

from history.store.postgres import schema

FUNCTION = "recall_question"
REPEAT_PREFIX = "r_"
# What the index holds, as the search spells it (the planner matches the index by this text).
QUESTION_WORDS = f"{FUNCTION}(asked, project)"
# (1 + 0.4 * (pi²/6 - 1)) / 1.64493406685 = 0.76475, rounded up past float4's rounding.
ONCE_CEILING = 0.766


def index_statement() -> str:
    """The index as revision 0014 made it (over `recall_question`, which it made too)."""
    return f"CREATE INDEX {schema.ASKED_INDEX} ON turns USING gin (({QUESTION_WORDS}))"


def repeats_query(words: Iterable[str]) -> str:
    """The text of a tsquery matching the turns whose question repeats one of `words` (our
    words: letters and digits only, nothing to quote)."""
    return " | ".join(f"'{REPEAT_PREFIX}{word}'" for word in words)


_SINGLE = text(
    f"SELECT word, plainto_tsquery('{schema.CONFIG}', word)::text = '''' || word || ''''"
    " FROM unnest(CAST(:words AS text[])) AS word"
)


def single_lexemes(conn: Connection, words: list[str]) -> dict[str, bool]:
    """Whether PostgreSQL's parser reads each of `words` as one lexeme, itself."""
    return {str(word): bool(single) for word, single in conn.execute(_SINGLE, {"words": words})}

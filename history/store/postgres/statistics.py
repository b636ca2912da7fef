"""How many turns hold each word: what a word's weight (idf) and a search's plan rest on. A word
counted here is counted in the question, files and answer (weights A to C), not in the work.

Counting a common word's turns reads its whole posting list and visits every row, so on a
large table a word's count comes from ANALYZE's statistics of `search_vector` (the lexemes
PostgreSQL found most common in its sample, with their frequencies) and only the words rarer
than those are counted, which is cheap. Counts are cached until the table has grown by a tenth
(or shrunk); below CACHE_FROM_ROWS turns everything is counted afresh. The table's size itself
is looked up at most every SIZE_SECONDS (a statement each search costs 1-5 ms on a busy server).
ANALYZE's shares are of the whole vector, the work's words included: a word that common keeps
that share (counting it without the work would read every row that holds it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from sqlalchemy import Connection, TextClause, text
from sqlalchemy.exc import OperationalError

from history.store.postgres import project_words, question_index, schema
from history.store.postgres.engine import prepared_at_first_run

CACHE_FROM_ROWS = 20_000
SIZE_SECONDS = 2.0
MOST_CACHED_WORDS = 100_000
_ESTIMATED_ROWS = text(schema.ESTIMATED_ROWS)
_COUNT_ROWS = text("SELECT count(*) FROM turns")
COUNT_LOCK_TIMEOUT_MS = 100
LOCK_NOT_AVAILABLE = "55P03"
_SETTINGS = text("SELECT current_setting('lock_timeout'), current_setting('plan_cache_mode')")
_SET = text(
    "SELECT set_config('lock_timeout', :lock_timeout, true),"
    " set_config('plan_cache_mode', :plans, true)"
)
# A count reads every partition (it names no project): planned for its word, as a one-project
# search plans its own statements, it was planned over all 64 partitions at each word (6-14 ms
# at 1M, as long as the search's other statements together). It runs the plan its connection
# made for the first word instead, as an every-project search's statements do (search.py).
COUNT_PLANS = "force_generic_plan"

# A word's turns are those holding it outside the work (weight D, with the project's tag), as on
# SQLite (history/store/sqlite/fts5_rank.c): a word common in code keeps its weight in the
# question. The index finds the rows holding it anywhere; the filter reads their vectors.
_COUNT_WORD = text(
    f"SELECT count(*) FROM turns WHERE {schema.VECTOR_COLUMN} @@ {schema.word_query(':word')}"
    f" AND ts_filter({schema.VECTOR_COLUMN}, '{{a,b,c}}') @@ {schema.word_query(':word')}"
)
_COMMON_WORDS = text(
    "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats"
    " WHERE schemaname = current_schema() AND tablename = 'turns' AND attname = :column"
)


class WordCounts:
    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._in_projects: dict[tuple[str, str], int | None] = {}
        self._common: dict[str, float] = {}
        self._single: dict[str, bool] = {}
        self._rows = 0
        self._estimated, self._estimated_at = 0, -SIZE_SECONDS
        self._lock = threading.Lock()

    def rows_and_counts(self, conn: Connection, words: Sequence[str]) -> tuple[int, dict[str, int]]:
        """The number of turns, and how many of them hold each of `words`."""
        estimated = self._estimated
        if estimated < CACHE_FROM_ROWS or time.monotonic() - self._estimated_at > SIZE_SECONDS:
            estimated = int(conn.execute(_ESTIMATED_ROWS).scalar_one())
            self._estimated, self._estimated_at = estimated, time.monotonic()
        if estimated < CACHE_FROM_ROWS:
            total = _quickly(conn, _COUNT_ROWS, {})
            small = {word: _count(conn, word) for word in words}
            rows = estimated if total is None else total
            return rows, {word: 1 if count is None else count for word, count in small.items()}
        with self._lock:
            if estimated > self._rows * 1.1 or estimated < self._rows:
                self._counts.clear()
                self._in_projects.clear()
                self._single.clear()
                self._common = _common_words(conn)
                self._rows = estimated
            rows, common = self._rows, self._common
            missing = [word for word in words if word not in self._counts]
        # A word PostgreSQL did not find common is rarer than the rarest it did (half of
        # that, as its planner takes it) when a partition being rewritten holds its count up.
        rare = max(1, round(min(common.values(), default=0.0) * rows / 2))
        found = {
            word: round(common[word] * rows) if word in common else _count(conn, word)
            for word in missing
        }
        held = {word: rare for word, count in found.items() if count is None}
        counted = {word: count for word, count in found.items() if count is not None}
        with self._lock:
            self._counts.update(counted)
            return rows, {word: self._counts.get(word, held.get(word, 0)) for word in words}

    def single_lexemes(self, conn: Connection, words: Sequence[str]) -> list[bool]:
        """Whether PostgreSQL's parser reads each of `words` as one lexeme, itself (the words
        whose repeats the question's index holds: question_index.py)."""
        with self._lock:
            if len(self._single) > MOST_CACHED_WORDS:
                self._single.clear()
            # ASCII letters only, or digits only: one token for the parser, nothing to ask.
            self._single.update(
                (word, True)
                for word in words
                if word.isascii() and word.isalnum() and (word.isalpha() or word.isdigit())
            )
            missing = [word for word in words if word not in self._single]
        found = question_index.single_lexemes(conn, missing) if missing else {}
        with self._lock:
            self._single.update(found)
            return [self._single.get(word, False) for word in words]

    def in_project(self, conn: Connection, project: str, words: Sequence[str]) -> dict[str, int]:
        """Of `words`, those common in the project (upkeep's sample, project_words.py), with
        about how many of its turns hold each."""
        with self._lock:
            missing = [word for word in words if (project, word) not in self._in_projects]
        found: dict[str, int | None] = dict.fromkeys(missing)
        if missing:
            found.update(project_words.in_project(conn, project, missing))
        with self._lock:
            self._in_projects.update(((project, word), turns) for word, turns in found.items())
            known = {word: self._in_projects.get((project, word)) for word in words}
        return {word: turns for word, turns in known.items() if turns is not None}


def _count(conn: Connection, word: str) -> int | None:
    return _quickly(conn, _COUNT_WORD, {"word": word})


def _quickly(conn: Connection, statement: TextClause, params: dict[str, str]) -> int | None:
    """The count, or None when a partition being rewritten (scrub.py) holds it up longer than
    COUNT_LOCK_TIMEOUT_MS: the search goes on with an estimate, not after the rewrite."""
    lock_timeout, plans = conn.execute(_SETTINGS).one()
    try:
        with conn.begin_nested(), prepared_at_first_run(conn):
            conn.execute(_SET, {"lock_timeout": f"{COUNT_LOCK_TIMEOUT_MS}ms", "plans": COUNT_PLANS})
            counted = int(conn.execute(statement, params).scalar_one())
            conn.execute(_SET, {"lock_timeout": lock_timeout, "plans": plans})
    except OperationalError as exc:
        if getattr(exc.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        return None
    return counted


def _common_words(conn: Connection) -> dict[str, float]:
    found = conn.execute(_COMMON_WORDS, {"column": schema.VECTOR_COLUMN}).first()
    if found is None or found[0] is None:
        return {}
    words, frequencies = found
    return {str(word): float(share) for word, share in zip(words, frequencies, strict=False)}

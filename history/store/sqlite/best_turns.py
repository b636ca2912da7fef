"""The best turns of each common word, kept beside FTS5: what lets a search rank the turns that
hold a common query word and no commoner one without walking every turn of that word.

For each word in between LIST_FROM_SHARE and LIST_UP_TO_SHARE of the turns, `best_turns` holds
its DEPTH turns with the highest part of bm25 the word gives them, without the idf (hits weighed
by column, over the turn's length against the average), and `best_turns_lists` the lowest of
them (`bound`), the average length it was computed at and the last turn it saw (`built_upto`).
Without the idf, a change in the word's count never reorders a list. Each row keeps the hits and
the length its score is made of, so the search scores it again with the index's own idf and
average length, to the bit what recall_bm25 gives (fts5_rank.c); a turn the list left out scores
at most `bound`, times the growth of the average length since (bm25 of a row rises at most in
that proportion), and turns after `built_upto` are ranked by FTS5 directly.

Built in the upkeep (a few words a step, each step its own write transaction) by the compiled
recall_best_turns, which walks the word's rows in one pass with every row's length read once
for all words (recall_lengths), and counts the turns holding the word outside their work (the
word's count, word_counts.py); rebuilt once the index has grown by REBUILD_AFTER_GROWTH.
A forgotten turn's rows go with it (trigger `best_turns_ad`, same transaction); an indexed
column rewritten drops the turn's rows and moves `built_upto` back before it, so FTS5 ranks it
again until the next build.
"""

from __future__ import annotations

import json
import struct
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from history.query import quote, stem, words
from history.ranking import COLUMN_WEIGHTS, K1, B
from history.store.sqlite import fts, word_counts
from history.store.sqlite.reads import Sql, operational

if TYPE_CHECKING:
    from sqlalchemy import Connection

LISTS = "best_turns_lists"
ROWS = "best_turns"
TURN_INDEX = f"ix_{ROWS}_turn"
FUNCTION = "recall_best_turns"
# Turns kept per word: a part's first ranking keeps ~200 (fts_search.py).
DEPTH = 256
# A word in fewer turns than LIST_FROM_ROWS (or LIST_FROM_SHARE of them) costs a search little
# as it is. A word in more than a quarter of the turns has a low idf (1.1 there, the floor 1e-6
# from half), so its own part rarely reaches a query's best; but without a list that part is
# ranked in windows of its newest turns, the slowest searches of the common mix (`loggers`,
# `simplified`): its list's bound ends the search instead. Above LIST_UP_TO_SHARE a word is all
# but everywhere. At 1M (bench/RESULTS.md) the common mix has ~1,590 lists, 100 of them of words
# over a quarter of the turns (7 s more upkeep, every-project p95 -19%).
LIST_FROM_SHARE = 0.01
LIST_UP_TO_SHARE = 0.9
LIST_FROM_ROWS = 10_000
REBUILD_AFTER_GROWTH = 0.05
# Turns read to find the common words (by their share of the sample).
SAMPLE_TURNS = 1_000
# The hits' column weights as the ranking weighs them (the project tag weighs nothing).
_WEIGHTS = ", ".join(str(w) for w in (*COLUMN_WEIGHTS, 0.0))
_RECORD = struct.Struct("<dqdq")


def drop_statements() -> list[str]:
    return [
        f"DROP TRIGGER IF EXISTS {ROWS}_au",
        f"DROP TRIGGER IF EXISTS {ROWS}_ad",
        f"DROP TABLE IF EXISTS {ROWS}",
        f"DROP TABLE IF EXISTS {LISTS}",
    ]


@dataclass(frozen=True)
class BestTurns:
    """One word's list as a search reads it: (turn id, hits, length) of its best turns in the
    project asked (every project: all of them)."""

    built_upto: int
    average_length: float
    bound: float
    turns: list[tuple[int, float, int]]

    def scores(self, term_idf: float, average_length: float) -> dict[int, float]:
        """Each turn's bm25 for the word alone, as recall_bm25 computes it."""
        return {
            turn: score(term_idf, hits, length, average_length) for turn, hits, length in self.turns
        }

    def left_out(self, term_idf: float, average_length: float) -> float:
        """The most a turn up to `built_upto` the list does not hold scores for the word."""
        if self.bound <= 0:
            return 0.0  # the list holds every turn of the word
        growth = max(1.0, average_length / self.average_length)
        return term_idf * self.bound * growth * (1 + 1e-9)


def score(term_idf: float, hits: float, length: int, average_length: float) -> float:
    """bm25 of one word, fts5_rank.c's arithmetic in its order (so the same bits)."""
    return term_idf * ((hits * (K1 + 1.0)) / (hits + K1 * (1 - B + B * length / average_length)))


def read(conn: Sql, word: str, project: str | None) -> BestTurns | None:
    """`word`'s list (by its index form), or None when there is none (or no table: a file
    that could not be migrated, opened read-only)."""
    try:
        found = conn.exec_driver_sql(
            f"SELECT built_upto, average_length, bound FROM {LISTS} WHERE word = ?", (word,)
        ).first()
    except Exception as error:
        if not operational(error):
            raise
        return None
    if found is None:
        return None
    sql = f"SELECT turn_id, hits, length FROM {ROWS} WHERE word = ?"
    given: tuple[str, ...] = (word,)
    if project is not None:
        sql, given = sql + " AND project = ?", (word, project)
    rows = [(int(t), float(h), int(n)) for t, h, n in conn.exec_driver_sql(sql, given)]
    return BestTurns(int(found[0]), float(found[1]), float(found[2]), rows)


def last_turn(conn: Sql) -> int:
    return int(conn.exec_driver_sql("SELECT max(id) FROM turns").scalar() or 0)


@dataclass(frozen=True)
class Built:
    """A word's list as recall_best_turns computed it."""

    upto: int  # the last turn when it was built
    blob: bytes  # recall_best_turns' records


def computed(conn: Connection, form: str, lengths: bytes | None) -> Built | None:
    """The list of the turns `form` matches, computed (a read); None when it matches none."""
    upto = last_turn(conn)
    blob = conn.exec_driver_sql(
        f"SELECT {FUNCTION}({fts.FTS_TABLE}, {DEPTH}, ?, {_WEIGHTS}) FROM {fts.FTS_TABLE} "
        f"WHERE {fts.FTS_TABLE} MATCH ? LIMIT 1",
        (lengths, quote(form)),
    ).scalar()
    return None if blob is None else Built(upto, bytes(blob))


def write(conn: Connection, word: str, built: Built | None, rows: int) -> None:
    """`word`'s list as `built` (None: it has none), computed when the index had `rows`."""
    conn.exec_driver_sql(f"DELETE FROM {ROWS} WHERE word = ?", (word,))
    if built is None:
        conn.exec_driver_sql(f"DELETE FROM {LISTS} WHERE word = ?", (word,))
        return
    records = list(_RECORD.iter_unpack(built.blob))
    bound, holding, average, _ = records[0]
    word_counts.keep(conn, word, int(holding), rows)
    conn.exec_driver_sql(
        f"INSERT OR REPLACE INTO {LISTS} (word, built_upto, average_length, bound, turns) "
        "VALUES (?, ?, ?, ?, ?)",
        (word, built.upto, average, bound, rows),
    )
    # Through `turns`: its project, and a turn that is gone is not listed. One statement: a
    # statement per row cost more than finding the rows.
    listed = json.dumps([[turn, hits, length] for _, turn, hits, length in records[1:]])
    conn.exec_driver_sql(
        f"INSERT INTO {ROWS} (word, turn_id, project, hits, length) "
        "SELECT ?, turns.id, turns.project, listed.value ->> 1, listed.value ->> 2 "
        "FROM json_each(?) AS listed JOIN turns ON turns.id = listed.value ->> 0",
        (word, listed),
    )


def compiled(conn: Connection) -> bool:
    """Whether this connection's ranking library has the list builder (one built before it
    has recall_bm25 alone: then there are no lists, and the search ranks as before)."""
    found = conn.exec_driver_sql(
        "SELECT 1 FROM pragma_function_list WHERE name = 'recall_lengths'"
    ).first()
    return found is not None


def common_words(conn: Connection) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The index forms in between LIST_FROM_SHARE and LIST_UP_TO_SHARE of a sample of the
    turns, each with a word of that form (what the list's MATCH is made of); and every form in
    LIST_FROM_SHARE of them or more (those above have no list, but are counted)."""
    import random  # the upkeep's alone: a search does without its import

    last = last_turn(conn)
    picked = sorted(random.Random(last).sample(range(1, last + 1), min(SAMPLE_TURNS, last)))
    marks = ", ".join("?" for _ in picked)
    texts = conn.exec_driver_sql(
        f"SELECT asked, answered, files, work FROM turns WHERE id IN ({marks})", tuple(picked)
    ).all()
    held: Counter[str] = Counter()
    form_of: dict[str, str] = {}
    stems: dict[str, str] = {}
    for row in texts:
        forms = set()
        for word in set(words(" ".join(value or "" for value in row))):
            if word not in stems:
                stems[word] = stem(word)
                form_of.setdefault(stems[word], word)
            forms.add(stems[word])
        held.update(forms)
    share = max(LIST_FROM_SHARE, LIST_FROM_ROWS / max(fts.indexed_rows(conn), 1))
    least, most = share * len(texts), LIST_UP_TO_SHARE * len(texts)
    listed = sorted((form, form_of[form]) for form, times in held.items() if least <= times <= most)
    return listed, {form: form_of[form] for form, times in held.items() if least <= times}

"""What the search knows of the PostgreSQL full-text index: the word function, the weighted
`search_vector` column and its GIN index. The revisions (alembic/versions) make them with DDL of
their own; `recall doctor` and a bulk load build the GIN index again (`index_statement`).

`search_vector` is a stored generated column: the database computes it from the row on every
insert and update, so no client (nor a forgotten trigger) can leave it out of step, and nothing
but PostgreSQL writes it. Its words are ours: `recall_words` folds text the way
`history.query.words` does (lowercase, NFKD with combining marks dropped, every run of
characters that are neither letters nor digits a separator), and the 'simple' configuration
keeps each word as it is (no stemming, no stop words: function words are dropped from queries).
Weights: A the question, B the file names, C the answer, D the work (since revision 0016) and
the project's tag (which only narrows a search: no query word is a tag).
"""

from __future__ import annotations

from collections.abc import Sequence

VECTOR_COLUMN = "search_vector"
VECTOR_INDEX = "ix_turns_search_vector"
WORDS_FUNCTION = "recall_words"
CONFIG = "simple"
TAG_EXPRESSION = "'p' || md5(project)"
# (column or SQL expression, weight) of the question, the file names, the answer and the tag,
# as revision 0004 indexed them (0016 adds the work).
WITH_TAG: tuple[tuple[str, str], ...] = (
    ("asked", "A"),
    ("files", "B"),
    ("answered", "C"),
    (TAG_EXPRESSION, "D"),
)
# The question's words and the project's tag, indexed apart (revision 0009, since 0014 with the
# words it repeats, question_index.py): a turn holding a query word in its question ranks above
# any that holds it only in its files or answer (search.py), so a search finds those turns
# first, in one project or in all, without reading every row that holds the word.
ASKED_INDEX = "ix_turns_asked_words"
# A pending list this large is merged by upkeep once writes pause, not by a `record`.
PENDING_LIST_KB = 4096


def vector_expression(columns: Sequence[tuple[str, str]]) -> str:
    parts = []
    for column, weight in columns:
        text = column if column == TAG_EXPRESSION else f"{WORDS_FUNCTION}({column})"
        parts.append(f"setweight(to_tsvector('{CONFIG}'::regconfig, {text}), '{weight}')")
    return " || ".join(parts)


def index_statement() -> str:
    """The vector's GIN index, its pending list as head has it."""
    return (
        f"CREATE INDEX {VECTOR_INDEX} ON turns USING gin ({VECTOR_COLUMN}) "
        f"WITH (fastupdate = on, gin_pending_list_limit = {PENDING_LIST_KB})"
    )


# `turns` is partitioned by a hash of the project (revision 0019): its partitions, and its
# rows as the statistics of each count them (the parent's own count moves only when ANALYZE
# reads the whole table).
# From the catalog, taking no lock: pg_partition_tree() would lock every partition, and wait
# for one being rewritten.
PARTITIONS = "SELECT inhrelid AS relid FROM pg_inherits WHERE inhparent = 'turns'::regclass"
PARTITION_NAMES = (
    f"SELECT c.relname FROM ({PARTITIONS}) t JOIN pg_class c ON c.oid = t.relid ORDER BY c.relname"
)
ESTIMATED_ROWS = (
    "SELECT coalesce(sum(greatest(c.reltuples, coalesce(s.n_live_tup, 0), 0)), 0)::bigint"
    f" FROM ({PARTITIONS}) t JOIN pg_class c ON c.oid = t.relid"
    " LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid"
)


def leaf_indexes(index: str) -> str:
    """SQL for each partition's index of the partitioned `index`."""
    return f"SELECT inhrelid AS relid FROM pg_inherits WHERE inhparent = '{index}'::regclass"


def pending_list_statement(kilobytes: int | None) -> str:
    """GIN's pending list: new entries go there and are merged into the index later. None
    gives back PostgreSQL's default (4 MB, merged by whichever insert fills it). A partitioned
    index takes no options: each partition's index is altered."""
    if kilobytes is None:
        change = "RESET (fastupdate, gin_pending_list_limit)"
    else:
        change = f"SET (fastupdate = on, gin_pending_list_limit = {kilobytes})"
    return (
        f"DO $$ DECLARE leaf regclass; BEGIN FOR leaf IN {leaf_indexes(VECTOR_INDEX)} LOOP"
        f" EXECUTE format('ALTER INDEX %s {change}', leaf); END LOOP; END $$"
    )


def word_query(parameter: str) -> str:
    """SQL for the tsquery of one of our words (a bound parameter): PostgreSQL's parser reads it
    as it read the indexed text, so a word it splits there (`12e5abc`: `12e5`, `abc`) is split
    here too. Our words hold only letters and digits: no query syntax ever reaches it."""
    return f"plainto_tsquery('{CONFIG}', {parameter})"


def project_tag(project: str) -> str:
    """The lexeme `search_vector` holds for a project: 'p' || md5(project)."""
    import hashlib

    return "p" + hashlib.md5(project.encode("utf-8"), usedforsecurity=False).hexdigest()

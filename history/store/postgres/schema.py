"""Everything that knows the PostgreSQL DDL of the full-text index: the word function, the
weighted `search_vector` column and its GIN index. Migrations call these with the columns of
their own revision, so an old revision keeps meaning what it meant.

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
# Combining marks (the blocks NFKD decomposes diacritics into) dropped after decomposing.
_MARKS = r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+"
TAG_EXPRESSION = "'p' || md5(project)"
# (column or SQL expression, weight), as revision 0002 indexed them and as 0004 does (0016
# spells out its own, with the work).
TEXT_WEIGHTS: tuple[tuple[str, str], ...] = (("asked", "A"), ("files", "B"), ("answered", "C"))
WITH_TAG: tuple[tuple[str, str], ...] = (*TEXT_WEIGHTS, (TAG_EXPRESSION, "D"))
# The question's words and the project's tag, indexed apart (revision 0009): a turn holding a
# query word in its question ranks above any that holds it only in its files or answer
# (search.py), so a search finds those turns first, in one project or in all, without reading
# every row that holds the word.
ASKED_INDEX = "ix_turns_asked_words"
ASKED_WORDS = (
    f"to_tsvector('{CONFIG}'::regconfig, {WORDS_FUNCTION}(asked))"
    f" || to_tsvector('{CONFIG}'::regconfig, {TAG_EXPRESSION})"
)
# ANALYZE's sample and its list of common words (10 x this many lexemes): at a million turns,
# every word in more than ~0.06% of the turns gets its count from the statistics, not a scan.
VECTOR_STATISTICS = 1000
# A pending list this large is merged by upkeep once writes pause, not by a `record`.
PENDING_LIST_KB = 4096


# In ASCII text, the characters PostgreSQL's parser may keep inside one token (a file path, a
# host, an e-mail address, a version, a signed number, a hyphenated word, an XML tag or entity):
# each becomes a space. Every other punctuation mark already separates words there.
JOINING_PUNCTUATION = "+-./~<>&@:"


def words_function_statement() -> str:
    """`recall_words(text)`: the text with its words separated as history.query.words separates
    them. ASCII text (the common case) has its joining punctuation replaced (a few `replace`
    calls, several times faster than a regular expression); other text is decomposed, its
    combining marks dropped and every run of non-alphanumeric characters made a space."""
    ascii_words = "lower(body)"
    for mark in JOINING_PUNCTUATION:
        ascii_words = f"replace({ascii_words}, '{mark}', ' ')"
    return (
        f"CREATE OR REPLACE FUNCTION {WORDS_FUNCTION}(body text) RETURNS text "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN CASE "
        f"WHEN octet_length(body) = char_length(body) THEN {ascii_words} "
        f"ELSE regexp_replace(regexp_replace(normalize(lower(body), NFKD), E'{_MARKS}', '', "
        "'g'), '[^[:alnum:]]+', ' ', 'g') END"
    )


def vector_expression(columns: Sequence[tuple[str, str]]) -> str:
    parts = []
    for column, weight in columns:
        text = column if column == TAG_EXPRESSION else f"{WORDS_FUNCTION}({column})"
        parts.append(f"setweight(to_tsvector('{CONFIG}'::regconfig, {text}), '{weight}')")
    return " || ".join(parts)


def create_statements(columns: Sequence[tuple[str, str]] = WITH_TAG) -> list[str]:
    """The word function, the generated column (computed for the rows already there) and its
    GIN index. The vector's storage is MAIN: a row too wide for its page moves its answer out to
    TOAST before its vector, so ranking a matching row reads its one heap page (measured: a
    third of the page reads of the default, where the vector went out first)."""
    return [
        words_function_statement(),
        f"ALTER TABLE turns ADD COLUMN {VECTOR_COLUMN} tsvector "
        f"GENERATED ALWAYS AS ({vector_expression(columns)}) STORED, "
        f"ALTER COLUMN {VECTOR_COLUMN} SET STORAGE MAIN",
        f"CREATE INDEX {VECTOR_INDEX} ON turns USING gin ({VECTOR_COLUMN})",
    ]


def drop_statements() -> list[str]:
    return [
        f"DROP INDEX IF EXISTS {VECTOR_INDEX}",
        f"ALTER TABLE turns DROP COLUMN IF EXISTS {VECTOR_COLUMN}",
        f"DROP FUNCTION IF EXISTS {WORDS_FUNCTION}(text)",
    ]


def asked_index_statements() -> list[str]:
    return [
        f"CREATE INDEX {ASKED_INDEX} ON turns USING gin (({ASKED_WORDS}))",
        f"ALTER TABLE turns ALTER COLUMN {VECTOR_COLUMN} SET STATISTICS {VECTOR_STATISTICS}",
    ]


def drop_asked_index_statements() -> list[str]:
    return [
        f"DROP INDEX IF EXISTS {ASKED_INDEX}",
        f"ALTER TABLE turns ALTER COLUMN {VECTOR_COLUMN} SET STATISTICS -1",
    ]


def pending_list_statement(kilobytes: int | None) -> str:
    """GIN's pending list: new entries go there and are merged into the index later. None
    gives back PostgreSQL's default (4 MB, merged by whichever insert fills it)."""
    if kilobytes is None:
        return f"ALTER INDEX {VECTOR_INDEX} RESET (fastupdate, gin_pending_list_limit)"
    return f"ALTER INDEX {VECTOR_INDEX} SET (fastupdate = on, gin_pending_list_limit = {kilobytes})"


def word_query(parameter: str) -> str:
    """SQL for the tsquery of one of our words (a bound parameter): PostgreSQL's parser reads it
    as it read the indexed text, so a word it splits there (`12e5abc`: `12e5`, `abc`) is split
    here too. Our words hold only letters and digits: no query syntax ever reaches it."""
    return f"plainto_tsquery('{CONFIG}', {parameter})"


def project_tag(project: str) -> str:
    """The lexeme `search_vector` holds for a project: 'p' || md5(project)."""
    import hashlib

    return "p" + hashlib.md5(project.encode("utf-8"), usedforsecurity=False).hexdigest()

"""Word forms and Chinese, Japanese and Korean text: found on both search paths, fast path too."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from history import HistoryIndex
from history.query import stem, terms
from history.ranking import K1, idf, score_bound
from history.store import migrations
from history.store.sqlite import engine as sqlite_db
from history.store.sqlite import fts, fts_search
from history.store.sqlite.doctor import index_agrees
from tests.helpers.engines import engine_of


@pytest.fixture
def index(any_index: HistoryIndex) -> HistoryIndex:
    return any_index


def record(index: HistoryIndex, turn_id: str, asked: str, answered: str = "") -> None:
    assert index.record(
        turn_id=turn_id, session_id=turn_id, project="/p", asked=asked, answered=answered
    )


def found(index: HistoryIndex, query: str) -> list[str]:
    return [hit.turn_id for hit in index.search(query, k=10)]


FILLER = [
    ("f1", "How do we cache the parser output?", "Keep it in memory, keyed by path."),
    ("f2", "Rename the settings module", "Done: settings.py is now config.py."),
    ("f3", "ログの出力先を変更したい", "設定ファイルで変えられます。"),
]


def fill(index: HistoryIndex) -> None:
    for turn_id, asked, answered in FILLER:
        record(index, turn_id, asked, answered)


def test_a_word_finds_its_other_forms(index: HistoryIndex) -> None:
    fill(index)
    record(index, "forms", "Proactiveness of the upkeep thread", "It merges when writes pause.")
    record(index, "plural", "Which indexes does the turns table have?", "Three.")
    assert found(index, "proactive") == ["forms"]
    assert found(index, "index") == ["plural"]
    assert found(index, "merging") == ["forms"]


def test_the_form_typed_ranks_above_a_form_sharing_only_its_stem(index: HistoryIndex) -> None:
    fill(index)
    # bm25 alone prefers the shorter turn; the user typed "multiplication", which only the
    # longer one says.
    record(index, "stem-only", "multiplications in the calculator module")
    record(index, "exact", "multiplication of numbers in the calculator module")
    assert found(index, "multiplication") == ["exact", "stem-only"]
    assert found(index, "multiplications") == ["stem-only", "exact"]


def test_multiplication_finds_the_turn_about_multiplication_first(index: HistoryIndex) -> None:
    """What a user typing "multiplication" wants first is the turn that talks about it, then
    turns naming another form of the word; `multiply_numbers` shares no Porter stem with it."""
    fill(index)
    record(index, "function", "Add multiply_numbers to calc.py", "def multiply_numbers(a, b)")
    record(index, "topic", "Is multiplication of floats exact here?", "No: rounding.")
    assert found(index, "multiplication") == ["topic"]
    assert found(index, "multiply") == ["function"]


CJK_TURNS = [
    ("zh", "修复了登录函数的错误", "问题出在密码哈希上。"),
    ("ja", "login_userの修正をお願いします", "パスワードのハッシュ化を直しました。"),
    ("ko", "로그인 함수를 고쳐 주세요", "비밀번호 해시 문제를 수정했습니다."),
    ("en", "Fix login_user for the new session store", "Sessions now expire after a day."),
]


@pytest.fixture
def cjk(index: HistoryIndex) -> HistoryIndex:
    fill(index)
    for turn_id, asked, answered in CJK_TURNS:
        record(index, turn_id, asked, answered)
    return index


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("登录函数", "zh"),  # Chinese: "login function", inside an unbroken sentence
        ("密码", "zh"),  # "password", in the answer
        ("修正", "ja"),  # Japanese: "fix", between a name and a particle
        ("ハッシュ", "ja"),  # katakana: "hash"
        ("로그인", "ko"),  # Korean: "login"
        ("함수", "ko"),  # "function", written 함수를 (with its particle) in the turn
        ("비밀번호", "ko"),  # "password"
    ],
)
def test_a_cjk_turn_is_found_by_a_word_of_it(cjk: HistoryIndex, query: str, first: str) -> None:
    assert found(cjk, query)[0] == first


def test_mixed_script_text_is_found_both_ways(cjk: HistoryIndex) -> None:
    # A Japanese sentence naming login_user is found by the name...
    assert set(found(cjk, "login_user")[:2]) == {"ja", "en"}
    # ...and a Japanese query naming it finds the English turn too.
    assert found(cjk, "login_userを直す")[:2] == ["ja", "en"]


def test_a_lone_cjk_character_is_a_word_of_its_own() -> None:
    assert terms("锁") == ["锁"]
    assert terms("加锁") == ["加锁"]


def test_a_cjk_query_takes_the_fast_paths_in_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts_search._Budget, "fits", lambda self, held: False)
    opened = HistoryIndex.open(tmp_path / "history.db")
    for turn_id, asked, answered in [*FILLER, *CJK_TURNS]:
        record(opened, turn_id, asked, answered)
    ranked: list[list[str]] = []
    original = fts_search._ranked

    def spy(conn, part, *rest):  # type: ignore[no-untyped-def]
        ranked.append([*part.held, *part.any_of])
        return original(conn, part, *rest)

    monkeypatch.setattr(fts_search, "_ranked", spy)
    assert [hit.turn_id for hit in opened.search("登录函数")][:1] == ["zh"]
    assert ranked and all(set(words) <= {"登录", "录函", "函数"} for words in ranked)
    opened.close()


def test_document_frequencies_are_those_of_the_stems(tmp_path: Path) -> None:
    opened = HistoryIndex.open(tmp_path / "history.db")
    for n, word in enumerate(["searching", "searches", "searched", "other"]):
        record(opened, f"t{n}", word)
    search = fts_search.FtsSearch(engine_of(opened))
    with engine_of(opened).connect() as conn:
        frequency = search._frequencies(conn, ["search", "searching", "other"], 4)
    assert frequency == {"search": 3, "searching": 3, "other": 1}
    opened.close()


WORD_FORMS_TEXT = """
proactive proactiveness multiplication multiply multiplications multiplicative login logins
logged logging search searching searches index indexes indices tokenizer tokenize tokens
generalization generalise running runs ran connection connections connected connecting
happy happiness hashing hashed migrate migration migrations caching cached cache argued
agreed feed bled sized hopping hoping filing failing relational conditional organization
operator sensitivity effective adjustable irritant replacement dependent adoption communism
activate angularity homologous formalize electrical hopeful goodness controlling rolling
"""
# The project tags are words of the index too (their counts size the fast path's parts).
PROJECTS = ["/p0", "/p1", "/work/shop", "/home/u/design", "/srv/feed", "/x/ed", "/a/b"]
WORD_FORMS = WORD_FORMS_TEXT.split() + [fts.project_tag(project) for project in PROJECTS]


def test_python_stems_are_fts5_porter_stems(tmp_path: Path) -> None:
    """The query side's stems (document frequencies, the LIKE path, excerpts) are the ones
    FTS5's porter tokenizer puts in the index."""
    opened = HistoryIndex.open(tmp_path / "history.db")
    with engine_of(opened).connect() as conn:
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE temp.stems USING fts5(w, tokenize='{fts.DEFAULT_TOKENIZE}')"
        )
        for n, word in enumerate(WORD_FORMS):
            conn.execute(
                text("INSERT INTO temp.stems(rowid, w) VALUES (:n, :w)"), {"n": n, "w": word}
            )
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE temp.stems_vocab USING fts5vocab(temp, stems, instance)"
        )
        by_row = {
            n: term for n, term in conn.execute(text("SELECT doc, term FROM temp.stems_vocab"))
        }
    assert {word: stem(word) for word in WORD_FORMS} == {
        word: by_row[n] for n, word in enumerate(WORD_FORMS)
    }
    opened.close()


def fts_sql(engine: Engine) -> str:
    with engine.connect() as conn:
        return str(
            conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'turns_fts'")).scalar()
        )


def test_a_database_at_0006_gets_word_forms_and_cjk_on_upgrade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "history.db"
    opened = HistoryIndex.open(path)
    for turn_id, asked, answered in [*FILLER, *CJK_TURNS]:
        record(opened, turn_id, asked, answered)
    record(opened, "forms", "Proactiveness of the upkeep thread")
    opened.close()
    engine = sqlite_db.create_sqlite_engine(sqlite_db.database_url(path))
    migrations.downgrade(engine, "0006_conversation_summaries")
    assert "tokenize='unicode61" in fts_sql(engine) and "content='turns'" in fts_sql(engine)
    assert index_agrees(engine)
    engine.dispose()

    # A terminal sees the rebuild's progress (a real upgrade shows it past 50,000 turns).
    monkeypatch.setattr(migrations, "PROGRESS_FROM_ROWS", 1)
    monkeypatch.setenv("FORCE_COLOR", "1")
    opened = HistoryIndex.open(path)
    assert "Rebuilding the full-text index" in capsys.readouterr().err
    assert "tokenize='porter unicode61" in fts_sql(engine_of(opened))
    assert index_agrees(engine_of(opened))
    assert found(opened, "proactive") == ["forms"]
    assert found(opened, "登录函数")[0] == "zh"
    assert merge_options(engine_of(opened)) == {"automerge": 0, "crisismerge": 256}
    opened.close()


def merge_options(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT k, v FROM turns_fts_config WHERE k LIKE '%merge'"))
        return {str(k): int(v) for k, v in rows}


def test_a_words_score_stays_below_the_bound_the_fast_path_prunes_by(tmp_path: Path) -> None:
    """However often a turn holds a word, in the form typed, its score for that word stays below
    `score_bound`, and above bm25's own bound: the bonus must be in the bound."""
    opened = HistoryIndex.open(tmp_path / "history.db")
    record(opened, "many", "zeppelin " * 2000)
    for n in range(30):
        record(opened, f"other{n}", f"unrelated turn {n}")
    (hit,) = opened.search("zeppelin")
    word_idf = idf(31, 1)
    # Scores are shares of the bound, so the bound is 1.
    assert word_idf * (K1 + 1) / score_bound(word_idf) < hit.score < 1
    opened.close()

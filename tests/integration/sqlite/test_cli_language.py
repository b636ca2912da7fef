"""`recall` in ten languages: --language, else RECALL_LANGUAGE, else the locale, else English;
its sentences, its --help and argparse's own words (usage:, error:) in the one chosen.

The catalogues themselves (every message in every language, same placeholders, compiled .mo
current) are held by tests/unit/test_catalogues.py; argparse's %-placeholders are held here.
"""

from __future__ import annotations

import argparse
import ast
import os
import pty
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from history.cli import argparse_words
from history.i18n import translator
from tests.helpers import catalogues
from tests.helpers.cli_runs import recall
from tests.helpers.paths import IMPORTERS
from tests.helpers.templates import new_index

RECALL = Path(sys.executable).parent / "recall"
LOCALE_VARIABLES = ("RECALL_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")
PERCENT_FIELD = re.compile(r"%(?:\(\w+\))?[sr]")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    index = new_index(home / "history.db")
    for n in range(3):
        index.record(
            turn_id=f"t{n}",
            session_id="conv-1",
            project="/work/shop",
            asked=f"How should the login function hash passwords? ({n})",
            answered="argon2id",
            asked_at=datetime.now(UTC),
        )
    index.close()
    return home


@pytest.fixture
def no_locale(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No language asked for anywhere in the environment: each test sets the one it means."""
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_language_option_speaks_german(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(capsys, "--language", "de", "--home", str(home), "stats")
    assert code == 0
    assert "3 in 1 Unterhaltung" in out and "Suche:" in out and "FTS5-Volltext" in out
    assert re.search(r"\(\d{1,3}(\.\d{3})+ Byte\)", out), out  # 1.234, as German groups it
    # After the subcommand too, and as --language=CODE; English again without it.
    code, out, _ = recall(
        capsys, "--home", str(home), "search", "login", "--everywhere", "--language=de"
    )
    assert code == 0 and out.startswith('3 Turns passen zu "login" in allen Projekten')
    code, out, _ = recall(capsys, "--home", str(home), "stats")
    assert "3 in 1 conversation" in out


def test_recall_language_speaks_japanese_and_the_option_overrides_it(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_locale.setenv("RECALL_LANGUAGE", "ja")
    no_locale.setenv("LANG", "fr_FR.UTF-8")
    code, out, _ = recall(capsys, "--home", str(home), "sessions", "--everywhere")
    assert code == 0 and out.startswith("すべてのプロジェクトの会話 (新しい順):")
    assert "(3 ターン)" in out
    code, out, _ = recall(
        capsys, "--language", "ko", "--home", str(home), "search", "zzz", "--everywhere"
    )
    assert code == 1 and "일치하는 것이 없습니다" in out


def test_the_locale_speaks_french(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_locale.setenv("LANG", "fr_FR.UTF-8")
    code, _, err = recall(capsys, "--home", str(home), "show", "nope")
    assert code == 1
    assert (
        err == "recall show : aucun échange n'a l'identifiant 'nope' (il a peut-être été oublié)\n"
    )
    no_locale.setenv("LC_MESSAGES", "ru_RU.UTF-8")  # LC_MESSAGES before LANG, LC_ALL before both
    assert "последний шаг" in recall(capsys, "--home", str(home), "projects")[1]
    no_locale.setenv("LC_ALL", "pt_BR.UTF-8")
    assert "último turno" in recall(capsys, "--home", str(home), "projects")[1]


def test_help_in_a_language(
    no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(capsys, "--language", "ru", "search", "--help")
    assert code == 0 and out.startswith("использование: recall search")
    assert "позиционные аргументы:" in out and "\nпараметры:" in out
    assert "показать эту справку и выйти" in out and "искать во всех проектах" in out
    code, out, _ = recall(capsys, "--language", "zh-CN", "--help")
    assert code == 0 and out.startswith("用法：recall")
    assert "搜索、遗忘并提供" in out and "退出码：" in out and "--language CODE" in out
    # argparse is English again for any other parser in the process.
    assert argparse.ArgumentParser(prog="x").format_usage().startswith("usage: x")


def test_bad_use_in_a_language_exits_2_with_one_line(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = recall(capsys, "--language", "de", "search")
    errors = [line for line in err.splitlines() if "Fehler" in line]
    assert code == 2 and errors == ["recall search: Fehler: diese Argumente fehlen: query"]
    code, _, err = recall(capsys, "--language", "es", "search", "x", "-k", "99")
    assert code == 2 and err.splitlines()[-1] == (
        "recall search: error: argumento -k: k es como máximo 10"
    )
    code, _, err = recall(capsys, "--language", "it", "forget", "--session", "a", "--project", "/p")
    assert code == 2 and err.splitlines()[-1].endswith(
        "argomento --project: non ammesso insieme all'argomento --session"
    )
    # A real process, its language from the locale: the same exit code and one error line.
    done = subprocess.run(
        [str(RECALL), "search", "x", "--days", "0"],
        capture_output=True,
        text=True,
        env={**os.environ, "RECALL_HOME": str(home), "RECALL_LANGUAGE": "", "LANG": "ja_JP.UTF-8"},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "recall search: エラー: 引数 --days: 0 は正の数ではありません"
    )


@pytest.mark.parametrize(
    ("option", "environment"),
    [(["--language", "xx"], {}), ([], {"LANG": "C"}), ([], {"RECALL_LANGUAGE": "tlh"})],
)
def test_an_unknown_language_is_english_without_an_error(
    home: Path,
    no_locale: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    option: list[str],
    environment: dict[str, str],
) -> None:
    for name, value in environment.items():
        no_locale.setenv(name, value)
    code, out, err = recall(capsys, *option, "--home", str(home), "stats")
    assert (code, err) == (0, "") and out.startswith("turns:")
    assert "3 in 1 conversation" in out


def test_forget_asks_and_takes_the_answer_in_the_language(home: Path) -> None:
    """German asks [j/N] and takes j; the question's [y/N] answer y is always understood too."""
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_LANGUAGE": "de"}
    said = _in_a_terminal([str(RECALL), "forget", "--session", "conv-1"], env, b"j\n")
    assert "Unterhaltung conv-1 vergessen? Das lässt sich nicht rückgängig machen. [j/N]" in said
    assert "3 Turns vergessen: Unterhaltung conv-1" in said


def _in_a_terminal(command: list[str], env: dict[str, str], typed: bytes) -> str:
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    os.write(leader, typed)
    heard = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed: the process is done
            break
        if not chunk:
            break
        heard += chunk
    process.wait(timeout=60)
    os.close(leader)
    return heard.decode("utf-8", "replace")


def _argparse_messages() -> set[str]:
    """Every message the running argparse looks up through `_` or `ngettext`."""
    source = Path(argparse.__file__).read_text(encoding="utf-8")
    found = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("_", "ngettext")
        ):
            found |= {a.value for a in node.args if isinstance(a, ast.Constant)}
    return {text for text in found if isinstance(text, str)}


def test_every_message_of_argparse_a_person_can_meet_is_in_the_catalogue() -> None:
    listed = set(argparse_words.MESSAGES) | {
        text for pair in argparse_words.PLURALS for text in pair
    }
    missing = _argparse_messages() - listed - set(argparse_words.PROGRAMMERS)
    assert not missing, f"add to history/cli/argparse_words.py and translate: {missing}"


@pytest.mark.parametrize("language", catalogues.TRANSLATED)
def test_argparse_messages_keep_their_percent_fields(language: str) -> None:
    """argparse fills them itself (`%(prog)s`, `%s`): each translation has the same ones, and
    ends as the English does (the error line's newline, the usage prefix's space)."""
    speaks = translator("cli", language)
    for english in argparse_words.MESSAGES:
        said = speaks.gettext(english)
        assert sorted(PERCENT_FIELD.findall(said)) == sorted(PERCENT_FIELD.findall(english))
        assert said.endswith("\n") == english.endswith("\n")
        assert said.endswith(" ") == english.endswith(" ") or language in ("zh-CN",)
    for singular, plural in argparse_words.PLURALS:
        for count in (1, 2, 5):
            said = speaks.ngettext(singular, plural, count)
            assert PERCENT_FIELD.findall(said) == ["%s"], (language, said)


def test_the_import_summary_in_a_language(
    tmp_path: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fixtures = IMPORTERS
    home = str(tmp_path / "home")
    code, out, _ = recall(
        capsys, "--language", "de", "--home", home, "import", "auto", str(fixtures)
    )
    assert code == 0 and out == (
        "15 Dateien gelesen (16 Unterhaltungen, 883 Zeilen, 8 übersprungen): Turns neu: 36, "
        "aktualisiert: 0, unverändert: 0.\n"
    )
    code, out, _ = recall(
        capsys, "--language", "ru", "--home", home, "import", "auto", str(fixtures)
    )
    assert code == 0 and out.startswith("Прочитано файлов: 15 (16 диалогов, 883 строки,")


def test_damaged_copies_are_named_in_the_language(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "history.db.corrupt-20260101T000000000000Z").write_bytes(b"not a database")
    code, out, _ = recall(capsys, "--language", "de", "--home", str(home), "stats")
    lines = [" ".join(line.split()) for line in out.splitlines()]  # whatever the column width
    assert code == 0 and lines[-1].startswith(
        "beschädigt: 1 beschädigte Kopie im Datenverzeichnis kann noch vergessene oder verlorene "
        "Turns enthalten (history.db.corrupt-20260101T000000000000Z): `recall doctor "
        "--delete-damaged` entfernt sie"
    )
    assert lines[0] == "Turns: 3 in 1 Unterhaltung"
    assert out.splitlines()[0].index("3") == out.splitlines()[-1].index("1")  # one column
    code, _, err = recall(
        capsys, "--language", "ru", "--home", str(home), "forget", "--session", "conv-1", "--yes"
    )
    assert code == 0 and err == (
        "recall forget: 1 повреждённая копия в каталоге данных ещё может содержать этот диалог: "
        "`recall doctor --delete-damaged` удалит её\n"
    )


def test_doctor_reports_in_the_language(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = recall(capsys, "--language", "fr", "--home", str(home), "doctor")
    assert code == 0 and out.splitlines()[:2] == [
        "Le fichier de base est sain (contrôle d'intégrité de SQLite : ok).",
        "L'index de texte intégral concorde avec la table des échanges (turns).",
    ]


def test_a_bad_cursor_is_said_in_the_language(
    home: Path, no_locale: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = recall(
        capsys, "--language", "ko", "--home", str(home), "sessions", "--before", "x"
    )
    assert (code, err) == (
        2,
        "recall sessions: before는 대화 목록이 준 커서(그 `cursor`)여야 합니다\n",
    )
